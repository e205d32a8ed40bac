import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `person_email(id)`: the tenancy library's one published read of `users`, for the agent-token
 * lookup of the credential store, so that an agent's audit records name the person behind an
 * OAuth grant (OCSF `actor.user.email_addr`, docs/audit.md) without another round trip per call.
 */
export class PersonEmailRead1764000025100 implements MigrationInterface {
  name = 'PersonEmailRead1764000025100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION person_email(person uuid) RETURNS text LANGUAGE sql STABLE AS $$ SELECT email FROM users WHERE id = person $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS person_email(uuid)`);
  }
}
