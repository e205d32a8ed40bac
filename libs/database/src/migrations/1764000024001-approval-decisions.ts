import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The decisions on approvals (owned by `libs/policy`): who approved (distinct people, so a
 * `count: 2` rule needs two of them), who denied, the reason given, why an approval was voided,
 * and the rule's description as it was when the call was held (the page shows it).
 */
export class ApprovalDecisions1764000024001 implements MigrationInterface {
  name = 'ApprovalDecisions1764000024001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE approvals
        ADD COLUMN rule_description text,
        ADD COLUMN approved_by uuid[] NOT NULL DEFAULT '{}',
        ADD COLUMN denied_by uuid,
        ADD COLUMN decision_reason text,
        ADD COLUMN voided_reason text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE approvals
        DROP COLUMN IF EXISTS rule_description,
        DROP COLUMN IF EXISTS approved_by,
        DROP COLUMN IF EXISTS denied_by,
        DROP COLUMN IF EXISTS decision_reason,
        DROP COLUMN IF EXISTS voided_reason`);
  }
}
