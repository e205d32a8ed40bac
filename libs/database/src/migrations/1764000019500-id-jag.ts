import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Enterprise-Managed Authorization (ID-JAG, the jwt-bearer grant):
 * - `id_jag_assertions` (owned by `libs/oauth`): the (issuer, jti) of every ID-JAG traded,
 *   kept until the assertion's expiry, so that each is used once across instances;
 * - `oauth_grants.id_jag_issuer` (owned by `libs/credential-store`): the identity provider whose
 *   ID-JAG created the grant (null: a consent); one live such grant per person, client, project
 *   and issuer, which each trade reuses;
 * - `oauth_clients`: a client registered for the jwt-bearer grant alone needs no redirect URI.
 */
export class IdJag1764000019500 implements MigrationInterface {
  name = 'IdJag1764000019500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE id_jag_assertions (
        issuer text NOT NULL,
        jti text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (issuer, jti)
      )`);
    await q.query(`CREATE INDEX id_jag_assertions_expires_idx ON id_jag_assertions (expires_at)`);
    await q.query(`ALTER TABLE oauth_grants ADD COLUMN id_jag_issuer text`);
    await q.query(
      `CREATE UNIQUE INDEX oauth_grants_id_jag_key ON oauth_grants (user_id, client_id, project_id, id_jag_issuer) WHERE revoked_at IS NULL AND id_jag_issuer IS NOT NULL`,
    );
    await q.query(`ALTER TABLE oauth_clients DROP CONSTRAINT oauth_clients_redirect_uris_check`);
    await q.query(
      `ALTER TABLE oauth_clients ADD CONSTRAINT oauth_clients_redirect_uris_check CHECK (cardinality(redirect_uris) > 0 OR NOT ('authorization_code' = ANY (grant_types)))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE oauth_clients DROP CONSTRAINT oauth_clients_redirect_uris_check`);
    await q.query(`ALTER TABLE oauth_clients ADD CONSTRAINT oauth_clients_redirect_uris_check CHECK (cardinality(redirect_uris) > 0)`);
    await q.query(`DROP INDEX IF EXISTS oauth_grants_id_jag_key`);
    await q.query(`ALTER TABLE oauth_grants DROP COLUMN IF EXISTS id_jag_issuer`);
    await q.query(`DROP TABLE IF EXISTS id_jag_assertions`);
  }
}
