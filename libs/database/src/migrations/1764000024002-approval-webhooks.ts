import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The approval webhook of an organisation (owned by `libs/policy`): where approvers are told of a
 * new approval, and its Standard Webhooks signing secret, encrypted at rest (AES-256-GCM under
 * `SECRETS_KEYS`, bound to this table, column and row).
 */
export class ApprovalWebhooks1764000024002 implements MigrationInterface {
  name = 'ApprovalWebhooks1764000024002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE approval_webhooks (
        organization_id uuid PRIMARY KEY CONSTRAINT approval_webhooks_organization_id_fkey REFERENCES organizations(id) ON DELETE CASCADE,
        url text NOT NULL,
        signing_secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS approval_webhooks`);
  }
}
