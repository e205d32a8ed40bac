import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who issued a password-reset link and for which organisation (both null for the command
 * line's links): a link an admin issued works only while that admin still administers the
 * organisation and the person is still a member of it. Deleting the issuer or the
 * organisation deletes the link.
 */
export class ResetLinkIssuer1764000016500 implements MigrationInterface {
  name = 'ResetLinkIssuer1764000016500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE password_reset_links ADD COLUMN organization_id uuid, ADD COLUMN issued_by uuid`);
    await q.query(`
      ALTER TABLE password_reset_links
        ADD CONSTRAINT password_reset_links_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE,
        ADD CONSTRAINT password_reset_links_issued_by_fkey FOREIGN KEY (issued_by) REFERENCES users(id) ON DELETE CASCADE`);
    await q.query(`CREATE INDEX password_reset_links_expiry_idx ON password_reset_links (expires_at)`);
    await q.query(`CREATE INDEX invitations_expiry_idx ON invitations (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS invitations_expiry_idx`);
    await q.query(`DROP INDEX IF EXISTS password_reset_links_expiry_idx`);
    await q.query(`ALTER TABLE password_reset_links DROP COLUMN IF EXISTS issued_by, DROP COLUMN IF EXISTS organization_id`);
  }
}
