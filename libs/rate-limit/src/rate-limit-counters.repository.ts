import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deleteInBatches, readStatement, statement } from '@app/database';

/** The live counters among some keys: their hits and the seconds left in their window. */
const LIVE_COUNTERS = statement(
  'rate_limit_counters.live',
  `SELECT key, hits, ceil(extract(epoch FROM window_ends_at - now()))::int AS retry_after
     FROM rate_limit_counters WHERE key = ANY($1::text[]) AND window_ends_at > now()`,
);

/** The `rate_limit_counters` table: one fixed-window counter per key. The only code that touches it. */
@Injectable()
export class RateLimitCountersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One hit on each key in one statement (an upsert; a window that has ended starts over), in
   * the given order of keys. Answers each counter's hits and the seconds left in its window.
   */
  hit(keys: string[], windowSeconds: number[]): Promise<{ key: string; hits: number; retry_after: number }[]> {
    return this.dataSource.query(
      `INSERT INTO rate_limit_counters AS c (key, hits, window_ends_at)
       SELECT r.key, 1, now() + make_interval(secs => r.window_seconds)
         FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS r(key, window_seconds, n)
        ORDER BY r.n
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN c.window_ends_at <= now() THEN 1 ELSE least(c.hits + 1, 1000000000) END,
         window_ends_at = CASE WHEN c.window_ends_at <= now() THEN excluded.window_ends_at ELSE c.window_ends_at END
       RETURNING c.key, c.hits, ceil(extract(epoch FROM c.window_ends_at - now()))::int AS retry_after`,
      [keys, windowSeconds],
    );
  }

  /** The counters of `keys` whose window is still open (a read: nothing is counted or locked). */
  live(keys: string[]): Promise<{ key: string; hits: number; retry_after: number }[]> {
    return readStatement(this.dataSource, LIVE_COUNTERS, [keys]);
  }

  /** Takes one hit back from a live window. */
  async release(key: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE rate_limit_counters SET hits = hits - 1 WHERE key = $1 AND hits > 0 AND window_ends_at > now()',
      [key],
    );
  }

  async reset(key: string): Promise<void> {
    await this.dataSource.query('DELETE FROM rate_limit_counters WHERE key = $1', [key]);
  }

  /** Counters whose window has ended (they would start over anyway). */
  deleteExpired(): Promise<number> {
    return deleteInBatches(this.dataSource, 'rate_limit_counters', 'key', 'window_ends_at <= now()');
  }
}
