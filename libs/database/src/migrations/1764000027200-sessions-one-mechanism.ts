import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions have one mechanism (SPEC §10): a session is live while its `sessions` row exists and
 * `expires_at > now()`. Sign-out, sign out everywhere, a password change, a reset and an email's
 * release delete rows (they already did), so the list of signed-out ids (`revoked_sessions`) and
 * the per-person cut-off (`users.sessions_not_before`) go. A session row already gone is refused
 * as before; a JWT whose `jti` never had a row is refused from now on.
 * `down` restores both, empty (a signed-out session's row is gone, which keeps it refused).
 */
export class SessionsOneMechanism1764000027200 implements MigrationInterface {
  name = 'SessionsOneMechanism1764000027200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE revoked_sessions`);
    await q.query(`ALTER TABLE users DROP COLUMN sessions_not_before`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN sessions_not_before timestamptz`);
    await q.query(`
      CREATE TABLE revoked_sessions (
        jti uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        expires_at timestamptz NOT NULL,
        CONSTRAINT revoked_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX revoked_sessions_expiry_idx ON revoked_sessions (expires_at)`);
  }
}
