import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An organisation's policy over agents' calls (owned by `libs/policy`): one row per organisation
 * that saved one (none: every call is allowed), its rules as written, and a version that each
 * save raises by one (the optimistic concurrency of the PUT, and what instances compare to know
 * their compiled copy is current).
 */
export class OrganizationPolicies1764000023000 implements MigrationInterface {
  name = 'OrganizationPolicies1764000023000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organization_policies (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        version integer NOT NULL CONSTRAINT organization_policies_version_check CHECK (version > 0),
        rules jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        updated_by uuid
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS organization_policies`);
  }
}
