import { MigrationInterface, QueryRunner } from 'typeorm';

/** Extra OpenID scopes an organisation's IdP is asked for at sign-in (`identity_providers.scopes`, owned by `libs/identity`). */
export class IdentityProviderScopes1764000022500 implements MigrationInterface {
  name = 'IdentityProviderScopes1764000022500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE identity_providers ADD COLUMN scopes jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE identity_providers DROP COLUMN IF EXISTS scopes`);
  }
}
