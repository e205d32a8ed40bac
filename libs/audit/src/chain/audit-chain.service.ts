import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AuditActor, AuditService } from '../audit.service';
import { AuditChainRepository, type SealedRecord } from './audit-chain.repository';
import { AuditRetentionRepository } from './audit-retention.repository';
import { chainHash, exportedEvent, GENESIS_HASH } from './chain-hash';
import { type Checkpoint, checkpointSignatureValid } from './checkpoint-signer';
import { checkCopy, type CopyVerdict } from './copy-check';

/** How many records one page of the export or of `verify` reads (one short query each). */
export const CHAIN_PAGE = 500;

export interface CheckpointKey {
  keyId: string;
  publicKey: string;
  createdAt: string;
}

export type ChainVerdict =
  | { intact: true; through: number; checkpoint: Checkpoint | null; keys: CheckpointKey[] }
  | {
      intact: false;
      /** The `seq` of the first record that does not hold (a missing one: the `seq` it would have had). */
      firstBroken: number;
      /** Its id, when the record is there. */
      recordId: string | null;
      reason: 'missing_record' | 'prev_hash_mismatch' | 'hash_mismatch' | 'checkpoint_mismatch' | 'checkpoint_signature_invalid';
      /** The last `seq` up to which the chain holds. */
      through: number;
      checkpoint: Checkpoint | null;
      keys: CheckpointKey[];
    };

/** An export's range: `seq` after `afterSeq`, or records written in [from, to). */
export interface ExportRange {
  afterSeq?: number;
  from?: Date;
  to?: Date;
}

/** One line of the export: a sealed OCSF event, or a checkpoint. */
export type ExportLine = Record<string, unknown> | { checkpoint: Checkpoint };

/**
 * Reads a chain back: the export (sealed events in `seq` order, checkpoint lines after the
 * record each covers) and its verification, both in keyset pages without a long transaction.
 */
@Injectable()
export class AuditChainService {
  constructor(
    private readonly chains: AuditChainRepository,
    private readonly retentions: AuditRetentionRepository,
    private readonly audit: AuditService,
    private readonly dataSource: DataSource,
  ) {}

  /** An organisation's export, recorded in its chain before the first line is read (exports are audited). */
  async exportAudited(organizationId: string, range: ExportRange, actor: AuditActor): Promise<AsyncGenerator<ExportLine>> {
    const metadata: Record<string, unknown> = { format: 'ocsf' };
    if (range.afterSeq !== undefined) metadata.afterSeq = range.afterSeq;
    if (range.from) metadata.from = range.from.toISOString();
    if (range.to) metadata.to = range.to.toISOString();
    await this.audit.record(this.dataSource.manager, {
      organizationId,
      actorType: actor.actorType,
      actorId: actor.actorId,
      action: 'audit.exported',
      targetType: 'organization',
      targetId: organizationId,
      metadata,
      origin: actor.origin,
    });
    return this.export(organizationId, range);
  }

  /** The `seq` of the chain's last sealed record (0 for a chain with none): where a new sink starts, and what its lag is measured against. */
  headSeq(chain: string): Promise<number> {
    return this.chains.headSeq(chain);
  }

  /** Every chain with sealed records (each organisation's, the service's): its head's `seq` and its last checkpoint's. */
  heads(): Promise<{ chain: string; seq: number; checkpointSeq: number }[]> {
    return this.chains.heads();
  }

  /** The chain's checkpoints with `seq` in (afterSeq, throughSeq], in order. */
  checkpoints(chain: string, afterSeq: number, throughSeq: number): Promise<Checkpoint[]> {
    return this.chains.checkpoints(chain, afterSeq, throughSeq);
  }

  async *export(chain: string, range: ExportRange): AsyncGenerator<ExportLine> {
    let after = range.afterSeq ?? 0;
    for (;;) {
      const page = await this.chains.sealedPage(chain, after, CHAIN_PAGE, { from: range.from, to: range.to });
      if (page.length === 0) return;
      const last = page[page.length - 1].seq;
      const checkpoints = new Map((await this.chains.checkpoints(chain, after, last)).map((c) => [c.seq, c]));
      for (const record of page) {
        yield exportedEvent(record.event, { seq: record.seq, prevHash: record.prevHash, hash: record.hash });
        const checkpoint = checkpoints.get(record.seq);
        if (checkpoint) yield { checkpoint };
      }
      if (page.length < CHAIN_PAGE) return;
      after = last;
    }
  }

  /**
   * A sink's copy of the chain (its NDJSON, as received) against the database: what the database
   * alone cannot show — records and checkpoints removed from the end, or rewritten with new
   * checkpoints — the copy names (docs/audit.md, "A sink's copy").
   */
  async checkCopy(chain: string, copy: string): Promise<CopyVerdict> {
    const keys = new Map((await this.chains.publicKeys()).map((k) => [k.keyId, k.publicKey]));
    const { expiredThroughSeq: anchorSeq } = await this.retentions.retention(chain);
    const hashOf = new Map<number, string>();
    let headSeq = anchorSeq;
    for (let after = anchorSeq; ; ) {
      const page = await this.chains.sealedPage(chain, after, CHAIN_PAGE);
      for (const record of page) hashOf.set(record.seq, record.hash);
      if (page.length === 0) break;
      after = headSeq = page[page.length - 1].seq;
    }
    return checkCopy(chain, copy, { hashOf, headSeq, anchorSeq, keys });
  }

  async verify(chain: string): Promise<ChainVerdict> {
    const keys = await this.chains.publicKeys();
    const keyOf = new Map(keys.map((k) => [k.keyId, k.publicKey]));
    let expected = 1;
    let prevHash = GENESIS_HASH;
    let lastGood: Checkpoint | null = null;
    let through = 0;
    const broken = (seq: number, recordId: string | null, reason: Extract<ChainVerdict, { intact: false }>['reason']): ChainVerdict => ({
      intact: false,
      firstBroken: seq,
      recordId,
      reason,
      through: reason === 'checkpoint_mismatch' || reason === 'checkpoint_signature_invalid' ? (lastGood?.seq ?? 0) : through,
      checkpoint: lastGood,
      keys,
    });
    // After an expiry the chain starts at its anchor: the checkpoint kept where the removed part ended.
    const { expiredThroughSeq: anchorSeq } = await this.retentions.retention(chain);
    if (anchorSeq > 0) {
      const [anchor] = await this.chains.checkpoints(chain, anchorSeq - 1, anchorSeq);
      if (!anchor) return broken(anchorSeq, null, 'missing_record');
      const key = keyOf.get(anchor.keyId);
      if (!key || !checkpointSignatureValid(chain, anchor, key)) return broken(anchorSeq, null, 'checkpoint_signature_invalid');
      lastGood = anchor;
      through = anchorSeq;
      prevHash = anchor.hash;
      expected = anchorSeq + 1;
    }
    for (;;) {
      const page: SealedRecord[] = await this.chains.sealedPage(chain, expected - 1, CHAIN_PAGE);
      const last = page.length > 0 ? page[page.length - 1].seq : expected - 1;
      const checkpoints = new Map((await this.chains.checkpoints(chain, expected - 1, page.length < CHAIN_PAGE ? Number.MAX_SAFE_INTEGER : last)).map((c) => [c.seq, c]));
      for (const record of page) {
        if (record.seq !== expected) return broken(expected, null, 'missing_record');
        if (record.prevHash !== prevHash) return broken(record.seq, record.id, 'prev_hash_mismatch');
        if (chainHash(record.event, record.seq, record.prevHash) !== record.hash) return broken(record.seq, record.id, 'hash_mismatch');
        const checkpoint = checkpoints.get(record.seq);
        if (checkpoint) {
          const key = keyOf.get(checkpoint.keyId);
          if (!key || !checkpointSignatureValid(chain, checkpoint, key)) return broken(record.seq, record.id, 'checkpoint_signature_invalid');
          if (checkpoint.hash !== record.hash) return broken(record.seq, record.id, 'checkpoint_mismatch');
          lastGood = checkpoint;
          checkpoints.delete(record.seq);
        }
        through = record.seq;
        prevHash = record.hash;
        expected += 1;
      }
      if (page.length < CHAIN_PAGE) {
        // A checkpoint beyond the last record: records at the end were removed.
        const beyond = [...checkpoints.values()].find((c) => c.seq > through);
        if (beyond) return broken(through + 1, null, 'missing_record');
        return { intact: true, through, checkpoint: lastGood, keys };
      }
    }
  }
}
