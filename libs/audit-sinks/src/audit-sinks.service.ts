import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AuditActor, AuditChainService, AuditService } from '@app/audit';
import { DomainError, isUuid, NotFoundError } from '@app/common';
import { AppConfig, encryptSecret, type SecretPlace, type SecretsKey } from '@app/config';
import { systemResolver } from '@app/outbound';
import type { AuditSinkDto, CreateAuditSinkDto, CreatedAuditSinkDto } from './audit-sinks.dto';
import { AuditSinksRepository } from './audit-sinks.repository';
import type { AuditSink } from './entities/audit-sink.entity';
import { checkedSinkUrl } from './sink-address';

/** Where each stored secret of a sink is, for its encryption's additional data. */
export const sinkSecretPlace = (sinkId: string, column: 'signing_secret' | 'token'): SecretPlace => ({ table: 'audit_sinks', column, rowId: sinkId });

/** An organisation's audit sinks (docs/audit.md, "Sinks"): listed with their progress, made and removed by its admins. */
@Injectable()
export class AuditSinksService {
  readonly keyRing: readonly SecretsKey[];

  constructor(
    private readonly sinks: AuditSinksRepository,
    private readonly chains: AuditChainService,
    private readonly audit: AuditService,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {
    this.keyRing = config.secretsKeys;
  }

  async list(organizationId: string): Promise<AuditSinkDto[]> {
    const [rows, head] = await Promise.all([this.sinks.list(organizationId), this.chains.headSeq(organizationId)]);
    return rows.map((row) => view(row, head));
  }

  async create(organizationId: string, body: CreateAuditSinkDto, actor: AuditActor): Promise<CreatedAuditSinkDto> {
    if (body.kind === 'splunk_hec' && !body.token) throw new DomainError('invalid_sink', 'token is required for a splunk_hec sink (its HEC token)');
    if (body.kind === 'https' && body.token !== undefined) throw new DomainError('invalid_sink', 'token is only for splunk_hec sinks; https sinks get a signing secret');
    const url = await checkedSinkUrl(body.url, {
      allowLoopback: this.config.outboundAllowLoopback,
      allowHosts: this.config.outboundAllowHosts,
      resolve: systemResolver,
    });
    const head = await this.chains.headSeq(organizationId);
    if (body.fromSeq !== undefined && body.fromSeq > head + 1) {
      throw new DomainError('invalid_sink', `fromSeq must be at most ${head + 1} (the next record of the chain)`);
    }
    const id = randomUUID();
    const signingSecret = body.kind === 'https' ? `whsec_${randomBytes(32).toString('base64')}` : undefined;
    const saved = await this.dataSource.transaction(async (em) => {
      const row = await this.sinks.insert(em, {
        id,
        organizationId,
        kind: body.kind,
        url: url.toString(),
        signingSecret: signingSecret ? encryptSecret(this.keyRing, signingSecret, sinkSecretPlace(id, 'signing_secret')) : null,
        token: body.token ? encryptSecret(this.keyRing, body.token, sinkSecretPlace(id, 'token')) : null,
        lastDeliveredSeq: body.fromSeq !== undefined ? body.fromSeq - 1 : head,
      });
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'audit_sink.created',
        targetType: 'audit_sink',
        targetId: id,
        metadata: { kind: body.kind, url: url.toString(), fromSeq: Number(row.lastDeliveredSeq) + 1 },
      });
      return row;
    });
    return { ...view(saved, head), ...(signingSecret ? { signingSecret } : {}) };
  }

  async remove(organizationId: string, id: string, actor: AuditActor): Promise<void> {
    const sink = isUuid(id) ? await this.sinks.find(organizationId, id) : null;
    if (!sink) throw new NotFoundError('Audit sink');
    await this.dataSource.transaction(async (em) => {
      if (!(await this.sinks.delete(em, organizationId, id))) throw new NotFoundError('Audit sink');
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'audit_sink.deleted',
        targetType: 'audit_sink',
        targetId: id,
        metadata: { kind: sink.kind, url: sink.url, lastDeliveredSeq: Number(sink.lastDeliveredSeq) },
      });
    });
  }
}

function view(row: AuditSink, head: number): AuditSinkDto {
  const delivered = Number(row.lastDeliveredSeq);
  return {
    id: row.id,
    kind: row.kind,
    url: row.url,
    lastDeliveredSeq: delivered,
    lag: Math.max(0, head - delivered),
    lastError: row.lastError,
    createdAt: row.createdAt,
  };
}
