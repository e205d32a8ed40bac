import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The core schema: organisations, people, projects, the credentials that open capabilities
 * (agent tokens) or the REST surface (API keys), service keys, tasks and the audit trail.
 * Secrets are never stored: only the SHA-256 hex digest of each token.
 */
export class CoreSchema1764000000000 implements MigrationInterface {
  name = 'CoreSchema1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        name text NOT NULL,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_key ON users (lower(email))`);
    await q.query(`
      CREATE TABLE memberships (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('admin', 'member')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, user_id)
      )`);
    await q.query(`CREATE INDEX memberships_user_idx ON memberships (user_id)`);
    await q.query(`
      CREATE TABLE projects (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE INDEX projects_org_idx ON projects (organization_id, created_at) WHERE deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE service_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        permissions text[] NOT NULL,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX service_keys_org_idx ON service_keys (organization_id, created_at)`);
    await q.query(`
      CREATE TABLE agent_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash text NOT NULL,
        source text NOT NULL CHECK (source IN ('oauth', 'service_key')),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        permissions text[] NOT NULL,
        service_key_id uuid REFERENCES service_keys(id) ON DELETE CASCADE,
        grant_id uuid,
        client_id text,
        user_id uuid REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        CHECK ((source = 'service_key') = (service_key_id IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX agent_tokens_hash_key ON agent_tokens (token_hash)`);
    await q.query(`CREATE INDEX agent_tokens_project_idx ON agent_tokens (project_id) WHERE revoked_at IS NULL`);
    await q.query(`CREATE INDEX agent_tokens_service_key_idx ON agent_tokens (service_key_id)`);
    await q.query(`CREATE INDEX agent_tokens_grant_idx ON agent_tokens (grant_id) WHERE grant_id IS NOT NULL`);
    await q.query(`
      CREATE UNIQUE INDEX agent_tokens_one_active_per_key_project
        ON agent_tokens (service_key_id, project_id)
        WHERE service_key_id IS NOT NULL AND revoked_at IS NULL`);
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        key_hash text NOT NULL,
        permissions text[] NOT NULL,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_hash_key ON api_keys (key_hash)`);
    await q.query(`CREATE INDEX api_keys_org_idx ON api_keys (organization_id, created_at)`);
    await q.query(`
      CREATE TABLE tasks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        description text CHECK (description IS NULL OR char_length(description) <= 10000),
        status text NOT NULL DEFAULT 'todo' CHECK (status IN ('todo', 'in_progress', 'done')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX tasks_project_idx ON tasks (project_id, created_at, id)`);
    await q.query(`
      CREATE TABLE audit_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
        project_id uuid,
        actor_type text NOT NULL,
        actor_id text,
        action text NOT NULL,
        target_type text,
        target_id text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        ip text,
        user_agent text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX audit_events_org_idx ON audit_events (organization_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['audit_events', 'tasks', 'api_keys', 'agent_tokens', 'service_keys', 'projects', 'memberships', 'users', 'organizations']) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
