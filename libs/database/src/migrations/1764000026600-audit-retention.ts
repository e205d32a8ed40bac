import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention of the audit chains (owned by `libs/audit`): an organisation's own, longer period
 * (`retention_days`, null: `AUDIT_RETENTION_DAYS`), and how far the chain's start was removed
 * (`expired_through_seq`: the checkpoint kept as the chain's new anchor; 0: nothing removed).
 */
export class AuditRetention1764000026600 implements MigrationInterface {
  name = 'AuditRetention1764000026600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_chains ADD COLUMN retention_days integer`);
    await q.query(`ALTER TABLE audit_chains ADD COLUMN expired_through_seq bigint NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_chains DROP COLUMN expired_through_seq`);
    await q.query(`ALTER TABLE audit_chains DROP COLUMN retention_days`);
  }
}
