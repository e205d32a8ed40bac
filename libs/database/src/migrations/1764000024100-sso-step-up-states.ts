import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A started single sign-on may be a step-up (SPEC §10: a recent sign-in through the
 * organisation's identity provider with `max_age=0`): `step_up_session_id` names the session
 * whose sign-in it refreshes (null: an ordinary sign-in). The row goes with its session.
 */
export class SsoStepUpStates1764000024100 implements MigrationInterface {
  name = 'SsoStepUpStates1764000024100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sso_states ADD COLUMN step_up_session_id uuid`);
    await q.query(
      `ALTER TABLE sso_states ADD CONSTRAINT sso_states_step_up_session_id_fkey FOREIGN KEY (step_up_session_id) REFERENCES sessions(id) ON DELETE CASCADE`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sso_states DROP COLUMN step_up_session_id`);
  }
}
