import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deleteInBatches, readStatement, statement } from '@app/database';

/**
 * Leases up to `$2` more of a window's limit `$3` on key `$1` (window ending at `$4`, ms since
 * the epoch) in one upsert: never past the limit, so the instances together never grant more
 * than it. Answers the part granted (0 once the window's limit is all leased).
 */
const GRANT = statement(
  'rate_limit_leases.grant',
  `INSERT INTO rate_limit_leases AS l (key, hits, last_granted, window_ends_at)
   VALUES ($1, LEAST($2::int, $3::int), LEAST($2::int, $3::int), to_timestamp($4::double precision / 1000))
   ON CONFLICT (key) DO UPDATE SET
     hits = l.hits + LEAST($2::int, GREATEST(0, $3::int - l.hits)),
     last_granted = LEAST($2::int, GREATEST(0, $3::int - l.hits))
   RETURNING last_granted`,
);

/** The `rate_limit_leases` table (`RateLimitLease`): the only code that touches it. */
@Injectable()
export class RateLimitLeasesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Grants up to `ask` of `limit` on the window `key`. A single autocommit statement, short and
   * indexed, so it goes the request path's way (`readStatement`: the read pipeline on PostgreSQL).
   */
  async grant(key: string, ask: number, limit: number, windowEndsAtMs: number): Promise<number> {
    const [row] = await readStatement<{ last_granted: number }>(this.dataSource, GRANT, [key, ask, limit, windowEndsAtMs]);
    return row?.last_granted ?? 0;
  }

  /** Windows that have ended (a new window is a new key). */
  deleteEnded(): Promise<number> {
    return deleteInBatches(this.dataSource, 'rate_limit_leases', 'key', 'window_ends_at <= now()');
  }
}
