import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An organisation's policy over agents' calls (owned by `libs/policy`): one row per organisation
 * that saved one (none: every call is allowed), its rules as written, and a version that each
 * save raises by one (the optimistic concurrency of the PUT, and what instances compare to know
 * their compiled copy is current). `organization_policy_version(org)` is the policy library's
 * one published read of it (0: no policy): the agent-token lookup calls it, so every MCP request
 * learns the current version in the statement it makes anyway.
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
    await q.query(`
      CREATE FUNCTION organization_policy_version(org uuid) RETURNS integer LANGUAGE sql STABLE AS
      $$ SELECT COALESCE((SELECT version FROM organization_policies WHERE organization_id = org), 0) $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS organization_policy_version(uuid)`);
    await q.query(`DROP TABLE IF EXISTS organization_policies`);
  }
}
