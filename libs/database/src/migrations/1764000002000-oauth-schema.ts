import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OAuth authorisation server (SPEC §5): registered clients, consent requests waiting for the
 * person's decision, single-use authorization codes, grants (one person, one client, one project,
 * the ticked permissions) and rotating refresh tokens. Access tokens live in `agent_tokens`
 * (source 'oauth') and now point at their grant. Only SHA-256 digests of secrets are stored.
 */
export class OAuthSchema1764000002000 implements MigrationInterface {
  name = 'OAuthSchema1764000002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oauth_clients (
        client_id text PRIMARY KEY,
        client_name text NOT NULL,
        redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) > 0),
        grant_types text[] NOT NULL,
        token_endpoint_auth_method text NOT NULL
          CHECK (token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
        client_secret_hash text,
        registration_ip text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_authorized_at timestamptz,
        CHECK ((token_endpoint_auth_method = 'none') = (client_secret_hash IS NULL))
      )`);
    await q.query(`CREATE INDEX oauth_clients_registration_ip_idx ON oauth_clients (registration_ip, created_at)`);
    await q.query(`CREATE INDEX oauth_clients_never_used_idx ON oauth_clients (created_at) WHERE last_authorized_at IS NULL`);

    await q.query(`
      CREATE TABLE oauth_authorization_requests (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        client_id text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        redirect_uri text NOT NULL,
        redirect_uri_sent boolean NOT NULL,
        state text,
        code_challenge text NOT NULL,
        requested_permissions text[] NOT NULL,
        resource text,
        csrf_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        decided_at timestamptz
      )`);
    await q.query(`CREATE INDEX oauth_authorization_requests_expiry_idx ON oauth_authorization_requests (expires_at)`);

    await q.query(`
      CREATE TABLE oauth_grants (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        client_id text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        permissions text[] NOT NULL CHECK (cardinality(permissions) > 0),
        resource text,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX oauth_grants_user_idx ON oauth_grants (user_id, created_at DESC)`);
    await q.query(`CREATE INDEX oauth_grants_org_user_idx ON oauth_grants (organization_id, user_id) WHERE revoked_at IS NULL`);
    await q.query(`CREATE INDEX oauth_grants_project_idx ON oauth_grants (project_id) WHERE revoked_at IS NULL`);

    await q.query(`
      CREATE TABLE oauth_authorization_codes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        code_hash text NOT NULL,
        grant_id uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
        client_id text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
        redirect_uri text NOT NULL,
        redirect_uri_sent boolean NOT NULL,
        code_challenge text NOT NULL,
        resource text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX oauth_authorization_codes_hash_key ON oauth_authorization_codes (code_hash)`);
    await q.query(`CREATE INDEX oauth_authorization_codes_grant_idx ON oauth_authorization_codes (grant_id)`);

    await q.query(`
      CREATE TABLE oauth_refresh_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash text NOT NULL,
        grant_id uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
        parent_id uuid REFERENCES oauth_refresh_tokens(id) ON DELETE SET NULL,
        issued_by text NOT NULL CHECK (issued_by IN ('authorization_code', 'rotation', 'grace')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        rotated_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX oauth_refresh_tokens_hash_key ON oauth_refresh_tokens (token_hash)`);
    await q.query(`CREATE INDEX oauth_refresh_tokens_grant_idx ON oauth_refresh_tokens (grant_id)`);
    await q.query(`CREATE INDEX oauth_refresh_tokens_parent_idx ON oauth_refresh_tokens (parent_id) WHERE parent_id IS NOT NULL`);

    await q.query(`
      ALTER TABLE agent_tokens
        ADD CONSTRAINT agent_tokens_grant_fk FOREIGN KEY (grant_id) REFERENCES oauth_grants(id) ON DELETE CASCADE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_tokens DROP CONSTRAINT IF EXISTS agent_tokens_grant_fk`);
    for (const table of ['oauth_refresh_tokens', 'oauth_authorization_codes', 'oauth_grants', 'oauth_authorization_requests', 'oauth_clients']) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
