import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last four characters of each `rk_` API key and `dga_` derived token, stored when it is made
 * so that lists can tell secrets apart (rows made before stay null: their lists show the prefix
 * only); and `valid_until`, the expiry a person may give a derived token when deriving it (its
 * `expires_at` stays the rotation's end).
 */
export class SecretHintsAndTokenExpiry1764000016700 implements MigrationInterface {
  name = 'SecretHintsAndTokenExpiry1764000016700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys ADD COLUMN secret_last4 text CONSTRAINT api_keys_secret_last4_check CHECK (char_length(secret_last4) = 4)`);
    await q.query(`ALTER TABLE agent_tokens ADD COLUMN secret_last4 text CONSTRAINT agent_tokens_secret_last4_check CHECK (char_length(secret_last4) = 4)`);
    await q.query(`ALTER TABLE agent_tokens ADD COLUMN valid_until timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_tokens DROP COLUMN IF EXISTS valid_until`);
    await q.query(`ALTER TABLE agent_tokens DROP COLUMN IF EXISTS secret_last4`);
    await q.query(`ALTER TABLE api_keys DROP COLUMN IF EXISTS secret_last4`);
  }
}
