import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { AppConfig } from '@app/config';
import { ScimPrincipal, ScimTokenResolver } from '@app/credentials';
import { ScimTokenOffboarding, type ScimTokensOffboarded, userOf } from '@app/people';
import { generateToken, hashToken, secretHint, secretLast4, TOKEN_PREFIXES } from '@app/credential-store';
import { isUuid } from '@app/common';
import type { CreatedScimTokenDto, RevokedScimTokenDto, ScimTokenDto, ScimTokenListDto } from './dto/scim-token.dto';
import { ScimToken } from './entities/scim-token.entity';
import { ScimTokenNotFoundError } from './scim.errors';

/** `last_used_at` is written at most this often per token. */
const LAST_USED_PRECISION_MS = 60_000;

/**
 * The `scim_tokens` table, the only place that queries it: an admin makes, lists and revokes an
 * organisation's SCIM tokens (each audited); the guard resolves a presented one by its digest.
 */
@Injectable()
export class ScimTokensService extends ScimTokenResolver implements ScimTokenOffboarding {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly audit: AuditService,
  ) {
    super();
  }

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(ScimToken);
  }

  async create(organizationId: string, input: { name: string; expiresAt?: string | null }, actor: AuditActor): Promise<CreatedScimTokenDto> {
    const token = generateToken(TOKEN_PREFIXES.scim);
    return this.dataSource.transaction(async (em) => {
      const row = await this.repo(em).save(
        this.repo(em).create({
          organizationId,
          name: input.name.trim(),
          tokenHash: hashToken(token),
          secretLast4: secretLast4(token),
          createdBy: userOf(actor),
          expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
        }),
      );
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'scim_token.created',
        targetType: 'scim_token',
        targetId: row.id,
        metadata: { name: row.name, expiresAt: row.expiresAt?.toISOString() ?? null },
      });
      return { ...toDto(row), token, scimBaseUrl: `${this.config.baseUrl}/scim/v2` };
    });
  }

  /** The organisation's tokens not revoked (an expired one too, shown as such), newest first. */
  async list(organizationId: string): Promise<ScimTokenListDto> {
    const rows = await this.repo().find({ where: { organizationId, revokedAt: IsNull() }, order: { createdAt: 'DESC', id: 'DESC' } });
    return { items: rows.map(toDto) };
  }

  async revoke(organizationId: string, id: string, actor: AuditActor): Promise<RevokedScimTokenDto> {
    if (!isUuid(id)) throw new ScimTokenNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const result = await this.repo(em)
        .createQueryBuilder()
        .update()
        .set({ revokedAt: () => 'now()' })
        .where('id = :id AND organization_id = :organizationId AND revoked_at IS NULL', { id, organizationId })
        .returning('id, name, revoked_at')
        .updateEntity(false)
        .execute();
      const [row] = result.raw as { id: string; name: string; revoked_at: Date }[];
      if (!row) throw new ScimTokenNotFoundError();
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'scim_token.revoked',
        targetType: 'scim_token',
        targetId: row.id,
        metadata: { name: row.name },
      });
      return { id: row.id, revokedAt: new Date(row.revoked_at).toISOString() };
    });
  }

  /**
   * The live tokens `userId` made in the organisation end (or pass to `handOverTo`), each audited
   * (`scim_token.revoked` or `scim_token.handed_over`, with the reason), in `em`'s transaction
   * (SPEC §10: `scim_` tokens follow the rule of `rk_` keys).
   */
  async endOrHandOverCreatedBy(
    em: EntityManager,
    organizationId: string,
    userId: string,
    options: { handOverTo: string | null; reason: 'member_removed' | 'member_demoted' },
    actor: AuditActor,
  ): Promise<ScimTokensOffboarded> {
    const { handOverTo, reason } = options;
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set(handOverTo ? { createdBy: handOverTo } : { revokedAt: () => 'now()' })
      .where('organization_id = :organizationId AND created_by = :userId AND revoked_at IS NULL', { organizationId, userId })
      .returning('id, name')
      .updateEntity(false)
      .execute();
    const tokens = (result.raw as { id: string; name: string }[]).map((r) => ({ id: r.id, name: r.name }));
    for (const token of tokens) {
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: handOverTo ? 'scim_token.handed_over' : 'scim_token.revoked',
        targetType: 'scim_token',
        targetId: token.id,
        metadata: { name: token.name, reason, createdBy: userId, ...(handOverTo ? { handedOverTo: handOverTo } : {}) },
      });
    }
    return { outcome: handOverTo ? 'handed_over' : 'revoked', tokens };
  }

  /** Who made a live token (null: unknown, revoked, or made by no person). */
  async makerOf(scimTokenId: string, em?: EntityManager): Promise<string | null> {
    return (await this.repo(em).findOne({ where: { id: scimTokenId }, select: { id: true, createdBy: true } }))?.createdBy ?? null;
  }

  /** The live token behind a presented `scim_` secret (form already checked), or null: revoked or past its expiry (the database's clock). */
  async resolve(token: string): Promise<ScimPrincipal | null> {
    const row = await this.repo()
      .createQueryBuilder('t')
      .select(['t.id', 't.organizationId', 't.lastUsedAt'])
      .where('t.token_hash = :hash AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())', { hash: hashToken(token) })
      .getOne();
    if (!row) return null;
    if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
      await this.repo().update({ id: row.id }, { lastUsedAt: () => 'now()' });
    }
    return { kind: 'scim', scimTokenId: row.id, organizationId: row.organizationId };
  }
}

function toDto(row: ScimToken): ScimTokenDto {
  return {
    id: row.id,
    name: row.name,
    hint: secretHint(TOKEN_PREFIXES.scim, row.secretLast4),
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
  };
}
