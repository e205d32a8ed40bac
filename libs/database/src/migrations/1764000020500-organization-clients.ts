import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organisation clients (SPEC §10): a confidential client an admin makes for ID-JAG belongs to the
 * organisation that made it (`organization_id`, gone with the organisation) and survives its
 * creator (`created_by` is a record, not a reference); `last_used_at` is its last token request.
 * Clients made before this change are given the organisation their creation was audited in.
 */
export class OrganizationClients1764000020500 implements MigrationInterface {
  name = 'OrganizationClients1764000020500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE oauth_clients
        ADD COLUMN organization_id uuid,
        ADD COLUMN created_by uuid,
        ADD COLUMN last_used_at timestamptz,
        ADD CONSTRAINT oauth_clients_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE`);
    await q.query(`CREATE INDEX oauth_clients_organization_idx ON oauth_clients (organization_id) WHERE organization_id IS NOT NULL`);
    await q.query(`
      UPDATE oauth_clients c SET organization_id = a.organization_id, created_by = a.actor_id::uuid
        FROM audit_events a
       WHERE a.action = 'oauth_client.registered' AND a.target_id = c.client_id AND a.organization_id IS NOT NULL
         AND a.actor_type = 'user' AND a.actor_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS oauth_clients_organization_idx`);
    await q.query(`ALTER TABLE oauth_clients DROP CONSTRAINT IF EXISTS oauth_clients_organization_id_fkey, DROP COLUMN organization_id, DROP COLUMN created_by, DROP COLUMN last_used_at`);
  }
}
