import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approvals of agents' calls held by an `approve` rule (owned by `libs/policy`). Each row is bound
 * to one exact call: organisation, project, tool, the SHA-256 of the RFC 8785 canonical validated
 * arguments, client, credential (the grant of an OAuth or ID-JAG token, the token itself for a
 * derived one), person, rule id and the hash of the rule; `binding_sha256` is the hash of all of
 * them, unique among pending rows, so a repeated call finds its pending approval. No foreign key
 * to the project: an approval outlives its project's deletion as a voided record.
 */
export class Approvals1764000024000 implements MigrationInterface {
  name = 'Approvals1764000024000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE approvals (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL CONSTRAINT approvals_organization_id_fkey REFERENCES organizations(id) ON DELETE CASCADE,
        project_id uuid NOT NULL,
        tool text NOT NULL,
        arguments jsonb NOT NULL,
        arguments_sha256 text NOT NULL,
        client_id text,
        credential_kind text NOT NULL CONSTRAINT approvals_credential_kind_check CHECK (credential_kind IN ('oauth', 'id_jag', 'derived')),
        credential_id uuid NOT NULL,
        token_id uuid NOT NULL,
        user_id uuid,
        rule_id text NOT NULL,
        rule_sha256 text NOT NULL,
        settings jsonb NOT NULL,
        binding_sha256 text NOT NULL,
        status text NOT NULL DEFAULT 'pending'
          CONSTRAINT approvals_status_check CHECK (status IN ('pending', 'approved', 'consumed', 'denied', 'expired', 'voided')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        decided_at timestamptz,
        consumed_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX approvals_pending_binding_key ON approvals (binding_sha256) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX approvals_credential_idx ON approvals (credential_id, created_at)`);
    await q.query(`CREATE INDEX approvals_organization_idx ON approvals (organization_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS approvals`);
  }
}
