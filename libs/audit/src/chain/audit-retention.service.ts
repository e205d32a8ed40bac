import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AuditActor, AuditService } from '../audit.service';
import { SERVICE_CHAIN } from '../ocsf/ocsf-common';
import { AuditChainRepository } from './audit-chain.repository';
import { AuditRetentionRepository, type ChainRetention } from './audit-retention.repository';

/** What one expiry removed. */
export interface Expiry {
  /** Records through this `seq` are gone; its checkpoint is the chain's anchor. */
  throughSeq: number;
  records: number;
}

/**
 * Retention of the chains (docs/audit.md, "Retention"): an organisation's own period, and the
 * expiry of a chain's start — whole sealed segments up to a checkpoint, which stays as the anchor
 * `verify` starts from; each expiry is itself a record of the chain. Which `seq` an expiry may
 * reach (what every sink has received) is the caller's to say.
 */
@Injectable()
export class AuditRetentionService {
  constructor(
    private readonly retentions: AuditRetentionRepository,
    private readonly chains: AuditChainRepository,
    private readonly audit: AuditService,
    private readonly dataSource: DataSource,
  ) {}

  retention(chain: string): Promise<ChainRetention> {
    return this.retentions.retention(chain);
  }

  /** The chains with sealed records, each with its own period (null: the deployment's). */
  expiring(): Promise<{ chain: string; retentionDays: number | null }[]> {
    return this.retentions.chains();
  }

  /** Sets an organisation's own period (null: the deployment's), recorded in its chain. */
  async setRetentionDays(organizationId: string, days: number | null, actor: AuditActor): Promise<void> {
    const previous = (await this.retentions.retention(organizationId)).retentionDays;
    await this.dataSource.transaction(async (em) => {
      await this.retentions.setRetentionDays(em, organizationId, days);
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'audit_retention.updated',
        targetType: 'organization',
        targetId: organizationId,
        metadata: { retentionDays: days, previousRetentionDays: previous },
      });
    });
  }

  /**
   * Removes the chain's records written before `cutoff`, through the last checkpoint that wholly
   * precedes it and is at most `maxSeq`. Null when nothing may go, or another instance holds the
   * chain right now (sealing it, or expiring it).
   */
  async expire(chain: string, cutoff: Date, maxSeq: number, retentionDays: number): Promise<Expiry | null> {
    return this.dataSource.transaction(async (em) => {
      if (!(await this.chains.holdHead(em, chain))) return null;
      const anchor = await this.retentions.expirable(em, chain, cutoff, maxSeq);
      if (!anchor) return null;
      const records = await this.retentions.expire(em, chain, anchor.seq);
      await this.audit.record(em, {
        organizationId: chain === SERVICE_CHAIN ? null : chain,
        actorType: 'system',
        action: 'audit_records.removed',
        targetType: 'audit_chain',
        targetId: chain,
        metadata: { throughSeq: anchor.seq, checkpointHash: anchor.hash, writtenBefore: cutoff.toISOString(), retentionDays, records },
      });
      return { throughSeq: anchor.seq, records };
    });
  }
}
