import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's OTLP stream of the audit chains (owned by `libs/audit-sinks`): one row per chain,
 * how far it was exported (`last_delivered_seq`, `last_checkpoint_seq`), the last failure and when
 * to try again, and the instance exporting it until `lease_expires_at`.
 */
export class AuditStreamPositions1764000026500 implements MigrationInterface {
  name = 'AuditStreamPositions1764000026500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_stream_positions (
        chain text PRIMARY KEY,
        last_delivered_seq bigint NOT NULL DEFAULT 0,
        last_checkpoint_seq bigint NOT NULL DEFAULT 0,
        last_error text,
        failures integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        holder text,
        lease_expires_at timestamptz
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS audit_stream_positions`);
  }
}
