import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the person behind a session last proved who they are (owned by `libs/tenancy`): set by
 * the database's clock at sign-in and at a re-authentication, read by the recent sign-in that
 * policy changes need. Sessions from before this change count as authenticated when they began.
 */
export class SessionAuthenticatedAt1764000023100 implements MigrationInterface {
  name = 'SessionAuthenticatedAt1764000023100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions ADD COLUMN authenticated_at timestamptz`);
    await q.query(`UPDATE sessions SET authenticated_at = created_at`);
    await q.query(`ALTER TABLE sessions ALTER COLUMN authenticated_at SET DEFAULT now(), ALTER COLUMN authenticated_at SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions DROP COLUMN IF EXISTS authenticated_at`);
  }
}
