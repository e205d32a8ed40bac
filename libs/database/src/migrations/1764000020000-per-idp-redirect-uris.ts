import { randomBytes } from 'node:crypto';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-IdP redirect URIs (SPEC §10, "Per-IdP redirect URIs"; owned by `libs/identity`):
 * - `identity_provider_redirects`: the random id of an organisation's redirect URI
 *   `{BASE_URL}/auth/sso/callback/<id>`; it belongs to the organisation, so it outlives a
 *   disconnect and an issuer change;
 * - `identity_providers.legacy_redirect_uri`: IdPs connected before this change registered the
 *   shared `/auth/sso/callback`, which stays accepted for them (with `iss` required where the
 *   issuer advertises it) until an admin says the new URI is registered. Every existing IdP gets
 *   its id and the flag.
 */
export class PerIdpRedirectUris1764000020000 implements MigrationInterface {
  name = 'PerIdpRedirectUris1764000020000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE identity_provider_redirects (
        organization_id uuid PRIMARY KEY,
        callback_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT identity_provider_redirects_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX identity_provider_redirects_callback_id_key ON identity_provider_redirects (callback_id)`);
    await q.query(`ALTER TABLE identity_providers ADD COLUMN legacy_redirect_uri boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE identity_providers SET legacy_redirect_uri = true`);
    const existing = (await q.query(`SELECT organization_id FROM identity_providers`)) as { organization_id: string }[];
    for (const row of existing) {
      await q.query(`INSERT INTO identity_provider_redirects (organization_id, callback_id) VALUES ($1, $2)`, [row.organization_id, randomBytes(16).toString('base64url')]);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE identity_providers DROP COLUMN IF EXISTS legacy_redirect_uri`);
    await q.query(`DROP TABLE IF EXISTS identity_provider_redirects`);
  }
}
