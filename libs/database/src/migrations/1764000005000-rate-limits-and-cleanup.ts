import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shared rate-limit counters (fixed windows) for every instance: failed logins per email and
 * per IP, sign-ups and OAuth client registrations per IP. The registration limit used to count
 * `oauth_clients` rows by `registration_ip`; it now uses these counters, so that index goes.
 * Also the indexes the periodic cleanup of expired OAuth rows scans by (codes and refresh
 * tokens by expiry, grants by revocation, OAuth access tokens by expiry).
 */
export class RateLimitsAndCleanup1764000005000 implements MigrationInterface {
  name = 'RateLimitsAndCleanup1764000005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rate_limit_counters (
        key text PRIMARY KEY,
        hits integer NOT NULL CHECK (hits >= 0),
        window_ends_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX rate_limit_counters_window_idx ON rate_limit_counters (window_ends_at)`);
    await q.query(`DROP INDEX IF EXISTS oauth_clients_registration_ip_idx`);
    await q.query(`CREATE INDEX oauth_authorization_codes_expiry_idx ON oauth_authorization_codes (expires_at)`);
    await q.query(`CREATE INDEX oauth_refresh_tokens_expiry_idx ON oauth_refresh_tokens (expires_at)`);
    await q.query(`CREATE INDEX oauth_grants_revoked_idx ON oauth_grants (revoked_at) WHERE revoked_at IS NOT NULL`);
    await q.query(`CREATE INDEX agent_tokens_oauth_expiry_idx ON agent_tokens (expires_at) WHERE source = 'oauth'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS agent_tokens_oauth_expiry_idx`);
    await q.query(`DROP INDEX IF EXISTS oauth_grants_revoked_idx`);
    await q.query(`DROP INDEX IF EXISTS oauth_refresh_tokens_expiry_idx`);
    await q.query(`DROP INDEX IF EXISTS oauth_authorization_codes_expiry_idx`);
    await q.query(`CREATE INDEX IF NOT EXISTS oauth_clients_registration_ip_idx ON oauth_clients (registration_ip, created_at)`);
    await q.query(`DROP TABLE IF EXISTS rate_limit_counters`);
  }
}
