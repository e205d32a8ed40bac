import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When an organisation's IdP last sent an ID token that passed the checks, and the names of its
 * claims (never their values): what tells an admin whether the configured groups claim arrives
 * (`identity_providers`, owned by `libs/identity`).
 */
export class LastIdToken1764000022600 implements MigrationInterface {
  name = 'LastIdToken1764000022600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE identity_providers ADD COLUMN last_id_token_at timestamptz`);
    await q.query(`ALTER TABLE identity_providers ADD COLUMN last_id_token_claims jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE identity_providers DROP COLUMN IF EXISTS last_id_token_claims`);
    await q.query(`ALTER TABLE identity_providers DROP COLUMN IF EXISTS last_id_token_at`);
  }
}
