import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `sso_states` (owned by `libs/identity`): each started single sign-on's `state` (as its SHA-256
 * digest), spent at its first valid presentation by a conditional update, so a replayed state is
 * refused on every instance (SPEC §10, "Starting single sign-on"). Rows are deleted once expired.
 */
export class SsoStates1764000020200 implements MigrationInterface {
  name = 'SsoStates1764000020200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sso_states (
        state_hash text PRIMARY KEY,
        organization_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        spent_at timestamptz,
        CONSTRAINT sso_states_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX sso_states_expires_idx ON sso_states (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS sso_states`);
  }
}
