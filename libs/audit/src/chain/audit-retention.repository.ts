import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Checkpoint } from './checkpoint-signer';

/** A chain's retention: its own period (null: the deployment's) and where its kept part begins. */
export interface ChainRetention {
  retentionDays: number | null;
  expiredThroughSeq: number;
}

/**
 * Retention's side of `audit_chains`, `audit_events` and `audit_checkpoints` (docs/audit.md,
 * "Retention"): the queries that find the segment that may go and remove it. With
 * `AuditChainRepository`, the only code that queries these tables besides `AuditEventsRepository`.
 */
@Injectable()
export class AuditRetentionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async retention(chain: string): Promise<ChainRetention> {
    const rows: { retention_days: number | null; expired_through_seq: string }[] = await this.dataSource.query(
      `SELECT retention_days, expired_through_seq FROM audit_chains WHERE chain = $1`,
      [chain],
    );
    return rows.length === 0 ? { retentionDays: null, expiredThroughSeq: 0 } : { retentionDays: rows[0].retention_days, expiredThroughSeq: Number(rows[0].expired_through_seq) };
  }

  /** Sets a chain's own period (null: the deployment's), making its row when the chain has none yet. */
  async setRetentionDays(em: EntityManager, chain: string, days: number | null): Promise<void> {
    await em.query(
      `INSERT INTO audit_chains (chain, retention_days) VALUES ($1, $2) ON CONFLICT (chain) DO UPDATE SET retention_days = EXCLUDED.retention_days`,
      [chain, days],
    );
  }

  /** Every chain with sealed records, with its own period (null: the deployment's). */
  async chains(): Promise<{ chain: string; retentionDays: number | null }[]> {
    const rows: { chain: string; retention_days: number | null }[] = await this.dataSource.query(
      `SELECT chain, retention_days FROM audit_chains WHERE seq > expired_through_seq ORDER BY chain`,
    );
    return rows.map((r) => ({ chain: r.chain, retentionDays: r.retention_days }));
  }

  /**
   * The last checkpoint of the chain's sealed start that lies wholly before `cutoff` (every record
   * up to it written before then), at most `maxSeq`, after the current anchor: where an expiry may
   * remove through. Null: nothing may go.
   */
  async expirable(em: EntityManager, chain: string, cutoff: Date, maxSeq: number): Promise<Checkpoint | null> {
    const rows: { seq: string; hash: string; key_id: string; signature: string; created_at: Date }[] = await em.query(
      `SELECT c.seq, c.hash, c.key_id, c.signature, c.created_at
         FROM audit_checkpoints c, audit_chains h
        WHERE c.chain = $1 AND h.chain = $1 AND c.seq > h.expired_through_seq AND c.seq <= $3
          AND c.seq < coalesce((SELECT min(e.seq) FROM audit_events e WHERE e.chain = $1 AND e.seq IS NOT NULL AND e.created_at >= $2), h.seq + 1)
        ORDER BY c.seq DESC LIMIT 1`,
      [chain, cutoff, maxSeq],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return { seq: Number(r.seq), hash: r.hash, keyId: r.key_id, signature: r.signature, time: new Date(r.created_at).getTime() };
  }

  /** Removes the chain's records through `throughSeq` and the checkpoints before it (that one stays, the new anchor); how many records went. */
  async expire(em: EntityManager, chain: string, throughSeq: number): Promise<number> {
    const [{ removed }]: { removed: string }[] = await em.query(
      `WITH gone AS (DELETE FROM audit_events WHERE chain = $1 AND seq IS NOT NULL AND seq <= $2 RETURNING 1) SELECT count(*) AS removed FROM gone`,
      [chain, throughSeq],
    );
    await em.query(`DELETE FROM audit_checkpoints WHERE chain = $1 AND seq < $2`, [chain, throughSeq]);
    await em.query(`UPDATE audit_chains SET expired_through_seq = $2 WHERE chain = $1`, [chain, throughSeq]);
    return Number(removed);
  }
}
