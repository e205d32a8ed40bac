import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An organisation's audit sinks (owned by `libs/audit-sinks`): where its chain is delivered, how
 * far (`last_delivered_seq`), the last failure and when to try again; the signing secret or the
 * Splunk token encrypted (AES-256-GCM, additional data = table, column, row id). One lease row
 * per organisation names the instance delivering its sinks until `expires_at`.
 */
export class AuditSinks1764000026000 implements MigrationInterface {
  name = 'AuditSinks1764000026000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_sinks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        kind text NOT NULL CONSTRAINT audit_sinks_kind_check CHECK (kind IN ('https', 'splunk_hec')),
        url text NOT NULL,
        signing_secret text,
        token text,
        last_delivered_seq bigint NOT NULL DEFAULT 0,
        last_checkpoint_seq bigint NOT NULL DEFAULT 0,
        last_error text,
        failures integer NOT NULL DEFAULT 0,
        batch_limit integer NOT NULL DEFAULT 500,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE audit_sink_leases (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS audit_sink_leases`);
    await q.query(`DROP TABLE IF EXISTS audit_sinks`);
  }
}
