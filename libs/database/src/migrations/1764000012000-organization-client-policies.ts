import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which AI clients an organisation admits (owned by `libs/oauth`): no row is "any client";
 * `mode = 'listed'` admits metadata-document clients whose `client_id` host is in
 * `allowed_hosts`, and registered clients only when `allow_registered_clients`.
 */
export class OrganizationClientPolicies1764000012000 implements MigrationInterface {
  name = 'OrganizationClientPolicies1764000012000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organization_client_policies (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('any', 'listed')),
        allowed_hosts text[] NOT NULL DEFAULT '{}',
        allow_registered_clients boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS organization_client_policies`);
  }
}
