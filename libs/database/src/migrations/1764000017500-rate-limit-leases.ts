import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The shared budgets of the MCP request limits (owned by `libs/rate-limit`): one row per key and
 * fixed window, the part of the window's limit the instances have leased between them. The
 * window-end index serves the periodic deletion of ended windows.
 */
export class RateLimitLeases1764000017500 implements MigrationInterface {
  name = 'RateLimitLeases1764000017500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rate_limit_leases (
        key text PRIMARY KEY,
        hits integer NOT NULL,
        last_granted integer NOT NULL,
        window_ends_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX rate_limit_leases_window_end_idx ON rate_limit_leases (window_ends_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS rate_limit_leases`);
  }
}
