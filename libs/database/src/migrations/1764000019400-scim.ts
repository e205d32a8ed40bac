import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SCIM 2.0: the `scim_tokens` table (owned by `libs/scim-tokens`), an organisation's SCIM clients'
 * bearer tokens (SHA-256 digests only); and, on `provisioned_users` (owned by `libs/identity`),
 * what provisioning needs to remember: the role, the invitation sent to an existing account,
 * whether SCIM created the account, and when the SCIM client deleted the person.
 */
export class Scim1764000019400 implements MigrationInterface {
  name = 'Scim1764000019400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE scim_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        name text NOT NULL,
        token_hash text NOT NULL,
        secret_last4 text NOT NULL,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT scim_tokens_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX scim_tokens_token_hash_key ON scim_tokens (token_hash)`);
    await q.query(`CREATE INDEX scim_tokens_org_idx ON scim_tokens (organization_id, created_at)`);
    await q.query(`ALTER TABLE provisioned_users ADD COLUMN role text NOT NULL DEFAULT 'member'`);
    await q.query(`ALTER TABLE provisioned_users ADD CONSTRAINT provisioned_users_role_check CHECK (role IN ('admin', 'member'))`);
    await q.query(`ALTER TABLE provisioned_users ADD COLUMN invitation_id uuid`);
    await q.query(
      `ALTER TABLE provisioned_users ADD CONSTRAINT provisioned_users_invitation_id_fkey FOREIGN KEY (invitation_id) REFERENCES invitations(id) ON DELETE SET NULL`,
    );
    await q.query(`ALTER TABLE provisioned_users ADD COLUMN account_created boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE provisioned_users ADD COLUMN deleted_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE provisioned_users DROP COLUMN IF EXISTS deleted_at`);
    await q.query(`ALTER TABLE provisioned_users DROP COLUMN IF EXISTS account_created`);
    await q.query(`ALTER TABLE provisioned_users DROP COLUMN IF EXISTS invitation_id`);
    await q.query(`ALTER TABLE provisioned_users DROP CONSTRAINT IF EXISTS provisioned_users_role_check`);
    await q.query(`ALTER TABLE provisioned_users DROP COLUMN IF EXISTS role`);
    await q.query(`DROP TABLE IF EXISTS scim_tokens`);
  }
}
