import { MigrationInterface, QueryRunner } from 'typeorm';

/** A SCIM token may end on a day its admin chose (`scim_tokens.expires_at`, owned by `libs/scim-tokens`); null: never. */
export class ScimTokenExpiry1764000022000 implements MigrationInterface {
  name = 'ScimTokenExpiry1764000022000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE scim_tokens ADD COLUMN expires_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE scim_tokens DROP COLUMN IF EXISTS expires_at`);
  }
}
