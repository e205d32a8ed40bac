import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Enterprise identity (owned by `libs/identity`): an organisation's OpenID Connect identity
 * provider, its claimed email domains, people's links to IdP accounts and the people its SCIM
 * client provisioned; and, on `sessions` (owned by `libs/tenancy`), the issuer a session was
 * opened through (null: a password sign-in).
 */
export class EnterpriseIdentity1764000019000 implements MigrationInterface {
  name = 'EnterpriseIdentity1764000019000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE identity_providers (
        organization_id uuid PRIMARY KEY,
        issuer text NOT NULL,
        tenant text,
        client_id text NOT NULL,
        client_secret text NOT NULL,
        default_role text NOT NULL,
        groups_claim text,
        role_mappings jsonb NOT NULL DEFAULT '[]'::jsonb,
        require_sso boolean NOT NULL DEFAULT false,
        accept_id_jag boolean NOT NULL DEFAULT false,
        id_jag_clients jsonb NOT NULL DEFAULT '[]'::jsonb,
        admin_signed_in_at timestamptz,
        discovery jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT identity_providers_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX identity_providers_issuer_idx ON identity_providers (issuer)`);
    await q.query(`
      CREATE TABLE identity_provider_domains (
        organization_id uuid NOT NULL,
        domain text NOT NULL,
        verification_token text NOT NULL,
        verified_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, domain),
        CONSTRAINT identity_provider_domains_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX identity_provider_domains_verified_key ON identity_provider_domains (domain) WHERE verified_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE identity_links (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL,
        issuer text NOT NULL,
        subject text,
        created_at timestamptz NOT NULL DEFAULT now(),
        linked_at timestamptz,
        CONSTRAINT identity_links_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX identity_links_subject_key ON identity_links (issuer, subject) WHERE subject IS NOT NULL`);
    await q.query(`CREATE UNIQUE INDEX identity_links_user_issuer_key ON identity_links (user_id, issuer)`);
    await q.query(`
      CREATE TABLE provisioned_users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid,
        user_name text NOT NULL,
        external_id text,
        given_name text,
        family_name text,
        display_name text,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT provisioned_users_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE,
        CONSTRAINT provisioned_users_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE SET NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX provisioned_users_org_user_key ON provisioned_users (organization_id, user_id)`);
    await q.query(`CREATE UNIQUE INDEX provisioned_users_org_user_name_key ON provisioned_users (organization_id, user_name)`);
    await q.query(`ALTER TABLE sessions ADD COLUMN sso_issuer text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions DROP COLUMN IF EXISTS sso_issuer`);
    await q.query(`DROP TABLE IF EXISTS provisioned_users`);
    await q.query(`DROP TABLE IF EXISTS identity_links`);
    await q.query(`DROP TABLE IF EXISTS identity_provider_domains`);
    await q.query(`DROP TABLE IF EXISTS identity_providers`);
  }
}
