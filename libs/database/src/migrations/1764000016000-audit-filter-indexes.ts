import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the audit-event list's filters (the audit page and `GET …/audit-events`), so a
 * filter that matches few of an organisation's events reads those events, not the whole log:
 * - `action`: (organization_id, action, created_at DESC, id DESC), newest first within an action
 *   (a family, `capability.*`, matches many and walks `audit_events_org_idx`);
 * - `projectId`: (organization_id, project_id, created_at DESC, id DESC) for events with a project;
 * - `credential` (a person, a key, a grant, a client: what it made, what targets it, what tokens
 *   derived from it made): one index per place the id can be, each newest first within the
 *   organisation; the list reads each place's newest matches and merges them (a UNION, not an OR
 *   the planner would answer by walking the whole log).
 * The metadata ones are partial: only events that carry that key.
 */
export class AuditFilterIndexes1764000016000 implements MigrationInterface {
  name = 'AuditFilterIndexes1764000016000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX audit_events_action_idx ON audit_events (organization_id, action, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX audit_events_project_idx ON audit_events (organization_id, project_id, created_at DESC, id DESC) WHERE project_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX audit_events_actor_idx ON audit_events (organization_id, actor_id, created_at DESC, id DESC) WHERE actor_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX audit_events_target_idx ON audit_events (organization_id, target_id, created_at DESC, id DESC) WHERE target_id IS NOT NULL`,
    );
    for (const [key, name] of [
      ['serviceKeyId', 'service_key'],
      ['grantId', 'grant'],
      ['clientId', 'client'],
    ]) {
      await q.query(
        `CREATE INDEX audit_events_${name}_idx ON audit_events (organization_id, (metadata->>'${key}'), created_at DESC, id DESC)
           WHERE (metadata->>'${key}') IS NOT NULL`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of ['action', 'project', 'actor', 'target', 'service_key', 'grant', 'client']) {
      await q.query(`DROP INDEX IF EXISTS audit_events_${name}_idx`);
    }
  }
}
