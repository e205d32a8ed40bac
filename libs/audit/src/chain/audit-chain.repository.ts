import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { queryReturning } from '@app/database';
import type { AuditRecordSource } from '../ocsf/ocsf-common';
import { timeRangeSql } from '../time-range';
import type { Checkpoint } from './checkpoint-signer';

/** An unsealed record as the sealer reads it: its stored event, or (a row older than events) its columns. */
export type UnsealedRecord = { id: string; event: Record<string, unknown>; source: null } | { id: string; event: null; source: AuditRecordSource };

/** A sealed record as the export and `verify` read it. */
export interface SealedRecord {
  id: string;
  seq: number;
  prevHash: string;
  hash: string;
  event: Record<string, unknown>;
  createdAt: Date;
}

export interface ChainHead {
  seq: number;
  hash: string | null;
  checkpointSeq: number;
  checkpointAt: Date;
}

/**
 * The chain side of `audit_events` (`seq`, `prev_hash`, `hash`, the sealer's queue) and the
 * tables `audit_chains`, `audit_checkpoints`, `audit_checkpoint_keys`. The only code that
 * queries them besides `AuditEventsRepository`.
 */
@Injectable()
export class AuditChainRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The chains with records ready to seal. */
  async chainsToSeal(): Promise<string[]> {
    const rows: { chain: string }[] = await this.dataSource.query(
      `SELECT DISTINCT chain FROM audit_events WHERE seq IS NULL AND (seal_after IS NULL OR seal_after <= now())`,
    );
    return rows.map((r) => r.chain);
  }

  /** The chains whose head moved since a checkpoint at least `ageMs` old. */
  async chainsDueForCheckpoint(ageMs: number): Promise<string[]> {
    const rows: { chain: string }[] = await this.dataSource.query(
      `SELECT chain FROM audit_chains WHERE seq > checkpoint_seq AND checkpoint_at <= now() - $1 * interval '1 millisecond'`,
      [ageMs],
    );
    return rows.map((r) => r.chain);
  }

  async ensureChain(chain: string): Promise<void> {
    await this.dataSource.query(`INSERT INTO audit_chains (chain) VALUES ($1) ON CONFLICT DO NOTHING`, [chain]);
  }

  /**
   * The chain's head, held for this transaction; null when another transaction holds it (it is
   * sealing the chain right now). With `waitMs`, it waits up to that long for that transaction to
   * end, and then fails the transaction with PostgreSQL's `lock_not_available`
   * (`PG_LOCK_NOT_AVAILABLE`).
   */
  async holdHead(em: EntityManager, chain: string, waitMs?: number): Promise<ChainHead | null> {
    if (waitMs !== undefined) await em.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.trunc(waitMs))}`);
    const rows: { seq: string; hash: string | null; checkpoint_seq: string; checkpoint_at: Date }[] = await em.query(
      `SELECT seq, hash, checkpoint_seq, checkpoint_at FROM audit_chains WHERE chain = $1 FOR UPDATE${waitMs === undefined ? ' SKIP LOCKED' : ''}`,
      [chain],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return { seq: Number(r.seq), hash: r.hash, checkpointSeq: Number(r.checkpoint_seq), checkpointAt: new Date(r.checkpoint_at) };
  }

  /**
   * The oldest unsealed records of a chain, in `created_at` order: each one's event as `held`
   * hands it over (the events this instance just wrote, `SealingNudge`), else as stored, else (a
   * row older than events) its columns to build it from. What `held` has is not read back.
   */
  async unsealed(em: EntityManager, chain: string, limit: number, held: (id: string) => Record<string, unknown> | undefined): Promise<UnsealedRecord[]> {
    const ids: { id: string }[] = await em.query(
      `SELECT id FROM audit_events
        WHERE chain = $1 AND seq IS NULL AND (seal_after IS NULL OR seal_after <= now())
        ORDER BY created_at, id
        LIMIT $2`,
      [chain, limit],
    );
    const events = new Map<string, Record<string, unknown>>();
    for (const { id } of ids) {
      const event = held(id);
      if (event) events.set(id, event);
    }
    const missing = ids.filter(({ id }) => !events.has(id)).map(({ id }) => id);
    const sources = new Map<string, AuditRecordSource>();
    if (missing.length > 0) {
      const rows: { id: string; event: Record<string, unknown> | null; source: Omit<AuditRecordSource, 'id'> | null }[] = await em.query(
        `SELECT id, event,
                CASE WHEN event IS NULL THEN json_build_object(
                  'time', (extract(epoch FROM created_at) * 1000)::bigint, 'organizationId', organization_id, 'projectId', project_id,
                  'actorType', actor_type, 'actorId', actor_id, 'action', action, 'targetType', target_type, 'targetId', target_id,
                  'metadata', coalesce(metadata, '{}'::jsonb), 'ip', ip, 'userAgent', user_agent) END AS source
           FROM audit_events WHERE id = ANY($1::uuid[])`,
        [missing],
      );
      for (const r of rows) {
        if (r.event) events.set(r.id, r.event);
        else if (r.source) sources.set(r.id, { ...r.source, id: r.id });
      }
    }
    const records: UnsealedRecord[] = [];
    for (const { id } of ids) {
      const event = events.get(id);
      const source = sources.get(id);
      if (event) records.push({ id, event, source: null });
      else if (source) records.push({ id, event: null, source });
    }
    return records;
  }

  /**
   * Seals written records in one statement. `event` is given only for a row older than events (the
   * event built for it, stored with its seal); a row's stored event is never sent back.
   */
  async seal(em: EntityManager, links: { id: string; seq: number; prevHash: string; hash: string; event: Record<string, unknown> | null }[]): Promise<void> {
    await queryReturning(
      em,
      `UPDATE audit_events AS a
          SET seq = v.seq, prev_hash = v.prev_hash, hash = v.hash, event = coalesce(a.event, v.event::jsonb)
         FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS v(id, seq, prev_hash, hash, event)
        WHERE a.id = v.id AND a.seq IS NULL`,
      [
        links.map((l) => l.id),
        links.map((l) => l.seq),
        links.map((l) => l.prevHash),
        links.map((l) => l.hash),
        links.map((l) => (l.event ? JSON.stringify(l.event) : null)),
      ],
    );
  }

  /** The chain's new head, in the transaction that holds it. */
  async moveHead(em: EntityManager, chain: string, seq: number, hash: string): Promise<void> {
    await em.query(`UPDATE audit_chains SET seq = $2, hash = $3 WHERE chain = $1`, [chain, seq, hash]);
  }

  async saveCheckpoint(em: EntityManager, chain: string, checkpoint: Checkpoint, publicKey: string): Promise<void> {
    await em.query(`INSERT INTO audit_checkpoint_keys (key_id, public_key) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [checkpoint.keyId, publicKey]);
    await em.query(`INSERT INTO audit_checkpoints (chain, seq, hash, key_id, signature, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, [
      chain,
      checkpoint.seq,
      checkpoint.hash,
      checkpoint.keyId,
      checkpoint.signature,
      new Date(checkpoint.time),
    ]);
    await em.query(`UPDATE audit_chains SET checkpoint_seq = $2, checkpoint_at = $3 WHERE chain = $1`, [chain, checkpoint.seq, new Date(checkpoint.time)]);
  }

  /** Up to `limit` sealed records after `afterSeq`, in `seq` order, optionally within a time range: one short query, no transaction. */
  async sealedPage(chain: string, afterSeq: number, limit: number, range: { from?: Date; to?: Date } = {}): Promise<SealedRecord[]> {
    const params: unknown[] = [chain, afterSeq, limit];
    const where = timeRangeSql(params, range);
    const rows: { id: string; seq: string; prev_hash: string; hash: string; event: Record<string, unknown>; created_at: Date }[] = await this.dataSource.query(
      `SELECT id, seq, prev_hash, hash, event, created_at FROM audit_events
        WHERE chain = $1 AND seq > $2 ${where}
        ORDER BY seq LIMIT $3`,
      params,
    );
    return rows.map((r) => ({ id: r.id, seq: Number(r.seq), prevHash: r.prev_hash, hash: r.hash, event: r.event, createdAt: r.created_at }));
  }

  /** The `seq` of the chain's last sealed record (0 for a chain with none). */
  async headSeq(chain: string): Promise<number> {
    const rows: { seq: string }[] = await this.dataSource.query(`SELECT seq FROM audit_chains WHERE chain = $1`, [chain]);
    return rows.length === 0 ? 0 : Number(rows[0].seq);
  }

  /** Every chain with sealed records: the `seq` of its head and of its last checkpoint. */
  async heads(): Promise<{ chain: string; seq: number; checkpointSeq: number }[]> {
    const rows: { chain: string; seq: string; checkpoint_seq: string }[] = await this.dataSource.query(
      `SELECT chain, seq, checkpoint_seq FROM audit_chains WHERE seq > 0 ORDER BY chain`,
    );
    return rows.map((r) => ({ chain: r.chain, seq: Number(r.seq), checkpointSeq: Number(r.checkpoint_seq) }));
  }

  /** The chain's checkpoints with `seq` in (afterSeq, throughSeq], in order. */
  async checkpoints(chain: string, afterSeq = 0, throughSeq = Number.MAX_SAFE_INTEGER): Promise<Checkpoint[]> {
    const rows: { seq: string; hash: string; key_id: string; signature: string; created_at: Date }[] = await this.dataSource.query(
      `SELECT seq, hash, key_id, signature, created_at FROM audit_checkpoints WHERE chain = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`,
      [chain, afterSeq, throughSeq],
    );
    return rows.map((r) => ({ seq: Number(r.seq), hash: r.hash, keyId: r.key_id, signature: r.signature, time: new Date(r.created_at).getTime() }));
  }

  /** Every public key a checkpoint was signed with. */
  async publicKeys(): Promise<{ keyId: string; publicKey: string; createdAt: string }[]> {
    const rows: { key_id: string; public_key: string; created_at: Date }[] = await this.dataSource.query(
      `SELECT key_id, public_key, created_at FROM audit_checkpoint_keys ORDER BY created_at, key_id`,
    );
    return rows.map((r) => ({ keyId: r.key_id, publicKey: r.public_key, createdAt: new Date(r.created_at).toISOString() }));
  }
}
