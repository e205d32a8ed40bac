import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People over time: invitations to an organisation (a link whose secret is stored as its SHA-256
 * digest, single use, expiring), one-time password-reset links, and server-side session ends:
 * a per-person `sessions_not_before` ("sign out everywhere", set too by a used reset link) and
 * the ids of single sessions that were signed out, kept until the session would have expired.
 */
export class PeopleLifecycle1764000008000 implements MigrationInterface {
  name = 'PeopleLifecycle1764000008000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN sessions_not_before timestamptz`);
    await q.query(`
      CREATE TABLE revoked_sessions (
        jti uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        expires_at timestamptz NOT NULL,
        CONSTRAINT revoked_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX revoked_sessions_expiry_idx ON revoked_sessions (expires_at)`);
    await q.query(`
      CREATE TABLE invitations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        email text NOT NULL,
        role text NOT NULL,
        token_hash text NOT NULL,
        invited_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by uuid,
        withdrawn_at timestamptz,
        CONSTRAINT invitations_role_check CHECK (role IN ('admin', 'member')),
        CONSTRAINT invitations_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE,
        CONSTRAINT invitations_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES users(id) ON DELETE SET NULL,
        CONSTRAINT invitations_accepted_by_fkey FOREIGN KEY (accepted_by) REFERENCES users(id) ON DELETE SET NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX invitations_token_hash_key ON invitations (token_hash)`);
    await q.query(`CREATE INDEX invitations_org_idx ON invitations (organization_id, created_at)`);
    await q.query(`
      CREATE TABLE password_reset_links (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL,
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        CONSTRAINT password_reset_links_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX password_reset_links_token_hash_key ON password_reset_links (token_hash)`);
    await q.query(`CREATE INDEX password_reset_links_user_idx ON password_reset_links (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS password_reset_links`);
    await q.query(`DROP TABLE IF EXISTS invitations`);
    await q.query(`DROP TABLE IF EXISTS revoked_sessions`);
    await q.query(`ALTER TABLE users DROP COLUMN IF EXISTS sessions_not_before`);
  }
}
