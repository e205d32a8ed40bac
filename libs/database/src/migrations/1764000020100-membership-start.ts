import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `membership_endings` (owned by `libs/tenancy`): when a person's membership of an organisation
 * last ended or was replaced (a removal, a demotion, a deprovisioning). The membership that exists
 * after it began then, so a session issued before it never opens the organisation again, whatever
 * path brought the membership back (SPEC §10, "Sessions"). A membership with no ending recorded
 * has been continuous since before any live session. `removed`: an admin removed the person, which
 * a later single sign-on does not undo (a new invitation or SCIM lifts it; SPEC §10);
 * `deprovisioned`: SCIM deprovisioned the person, and no invitation brings them back (SCIM does);
 * dropped by 1764000027100, `provisioned_users` alone says it.
 */
export class MembershipStart1764000020100 implements MigrationInterface {
  name = 'MembershipStart1764000020100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE membership_endings (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        ended_at timestamptz NOT NULL DEFAULT now(),
        removed boolean NOT NULL DEFAULT false,
        deprovisioned boolean NOT NULL DEFAULT false,
        PRIMARY KEY (organization_id, user_id),
        CONSTRAINT membership_endings_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE,
        CONSTRAINT membership_endings_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX membership_endings_user_idx ON membership_endings (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS membership_endings`);
  }
}
