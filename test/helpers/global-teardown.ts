import { readFileSync, rmSync } from 'node:fs';
import { checkRecordedAuditEvents } from './ocsf-record-check';
import { stopPostgres } from './postgres-server';
import type { TestState } from './test-state';

export default async function globalTeardown(): Promise<void> {
  const file = process.env.AG_TEST_STATE;
  if (!file) return;
  const state = JSON.parse(readFileSync(file, 'utf8')) as TestState;
  if (state.postgres) stopPostgres(state.postgres);
  // Every audit record the run's test files made (test/helpers/audit-record-check.ts), checked
  // once here: one wrong (invalid OCSF, a secret) fails the run.
  const { failures } = checkRecordedAuditEvents(state.dir);
  rmSync(state.dir, { recursive: true, force: true });
  if (failures.length > 0) {
    throw new Error(`${failures.length} audit record(s) failed the OCSF and secrets check:\n${failures.slice(0, 20).join('\n')}`);
  }
}
