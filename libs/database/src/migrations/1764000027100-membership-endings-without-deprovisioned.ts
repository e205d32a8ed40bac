import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `membership_endings` (owned by `libs/tenancy`) loses `deprovisioned`: whether the organisation's
 * SCIM client deprovisioned a person has one home, `provisioned_users.active = false` (owned by
 * `libs/identity`, asked through `IdentityProviderDirectory.isDeprovisioned`). An ending is now
 * only when the membership last ended or was replaced, and whether an admin's removal sticks.
 * `down` adds the column back as it was, set where the person's SCIM row in that organisation is
 * inactive (what SCIM's deprovisioning wrote there).
 */
export class MembershipEndingsWithoutDeprovisioned1764000027100 implements MigrationInterface {
  name = 'MembershipEndingsWithoutDeprovisioned1764000027100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE membership_endings DROP COLUMN deprovisioned`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE membership_endings ADD COLUMN deprovisioned boolean NOT NULL DEFAULT false`);
    await q.query(`
      UPDATE membership_endings e SET deprovisioned = true
        WHERE EXISTS (SELECT 1 FROM provisioned_users p WHERE p.organization_id = e.organization_id AND p.user_id = e.user_id AND NOT p.active)`);
  }
}
