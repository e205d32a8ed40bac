import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LEASE_SECONDS } from '../audit-sinks.repository';

/** One chain's place in the operator's stream. */
export interface StreamPosition {
  chain: string;
  lastDeliveredSeq: number;
  lastCheckpointSeq: number;
  failures: number;
}

/** The only code that queries `audit_stream_positions`. */
@Injectable()
export class AuditStreamRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every chain's position, and whether an attempt is due (a chain without a row: at 0, due). */
  async positions(): Promise<Map<string, StreamPosition & { due: boolean }>> {
    const rows: { chain: string; last_delivered_seq: string; last_checkpoint_seq: string; failures: number; due: boolean }[] = await this.dataSource.query(
      `SELECT chain, last_delivered_seq, last_checkpoint_seq, failures, next_attempt_at <= now() AS due FROM audit_stream_positions`,
    );
    return new Map(rows.map((r) => [r.chain, { chain: r.chain, lastDeliveredSeq: Number(r.last_delivered_seq), lastCheckpointSeq: Number(r.last_checkpoint_seq), failures: r.failures, due: r.due }]));
  }

  /** How far the stream exported a chain, with the checkpoints up to it (0: nothing yet): how far retention may remove. */
  async deliveredSeq(chain: string): Promise<number> {
    const rows: { least: string }[] = await this.dataSource.query(
      `SELECT least(last_delivered_seq, last_checkpoint_seq) AS least FROM audit_stream_positions WHERE chain = $1`,
      [chain],
    );
    return rows.length === 0 ? 0 : Number(rows[0].least);
  }

  /**
   * Takes (or renews) the chain's lease for `holder` when an attempt is due: its position, or null
   * while another instance's lease runs or the chain waits out a backoff. One conditional statement.
   */
  async takeLease(chain: string, holder: string): Promise<StreamPosition | null> {
    const rows: { chain: string; last_delivered_seq: string; last_checkpoint_seq: string; failures: number }[] = await this.dataSource.query(
      `INSERT INTO audit_stream_positions (chain, holder, lease_expires_at) VALUES ($1, $2, now() + $3 * interval '1 second')
       ON CONFLICT (chain) DO UPDATE SET holder = EXCLUDED.holder, lease_expires_at = EXCLUDED.lease_expires_at
        WHERE (audit_stream_positions.holder = EXCLUDED.holder OR audit_stream_positions.lease_expires_at IS NULL OR audit_stream_positions.lease_expires_at <= now())
          AND audit_stream_positions.next_attempt_at <= now()
       RETURNING chain, last_delivered_seq, last_checkpoint_seq, failures`,
      [chain, holder, LEASE_SECONDS],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return { chain: r.chain, lastDeliveredSeq: Number(r.last_delivered_seq), lastCheckpointSeq: Number(r.last_checkpoint_seq), failures: r.failures };
  }

  /**
   * Records an exported batch: the chain moves from `fromSeq` to `toSeq`. Conditional on
   * `fromSeq` and on `holder` still holding the lease: false when it lost it.
   */
  async delivered(chain: string, fromSeq: number, toSeq: number, checkpointSeq: number, holder: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `UPDATE audit_stream_positions SET last_delivered_seq = $3, last_checkpoint_seq = greatest(last_checkpoint_seq, $5), last_error = NULL, failures = 0
        WHERE chain = $1 AND last_delivered_seq = $2 AND holder = $4 AND lease_expires_at > now()
        RETURNING chain`,
      [chain, fromSeq, toSeq, holder, checkpointSeq],
    );
    return rows.length > 0;
  }

  /** Records a failed export: its error, and the next attempt after `retryInSeconds`. */
  async failed(chain: string, error: string, retryInSeconds: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE audit_stream_positions SET last_error = $2, failures = failures + 1, next_attempt_at = now() + $3 * interval '1 second' WHERE chain = $1`,
      [chain, error, retryInSeconds],
    );
  }
}
