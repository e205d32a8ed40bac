import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per sign-in (owned by `libs/tenancy`): the session JWT's `jti`, its person, when it was
 * issued and until when it works, and a short description of the browser, for the account
 * page's list of sessions. The expiry index serves the periodic deletion of expired rows.
 */
export class SignInSessions1764000018000 implements MigrationInterface {
  name = 'SignInSessions1764000018000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        user_agent text,
        ip text,
        CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX sessions_user_created_idx ON sessions (user_id, created_at)`);
    await q.query(`CREATE INDEX sessions_expiry_idx ON sessions (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS sessions`);
  }
}
