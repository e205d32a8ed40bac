import { readFileSync, rmSync } from 'node:fs';
import { checkRecordedAuditEvents } from './ocsf-record-check';
import { stopPostgres } from './postgres-server';
import type { TestState } from './test-state';

/**
 * Ends one run's database state (`prepareTestState`): stops its PostgreSQL cluster, removes its
 * folder, and checks every audit record its test files made (test/helpers/audit-record-check.ts):
 * one wrong (invalid OCSF, a secret) fails the run.
 */
export function endTestState(file: string): void {
  const state = JSON.parse(readFileSync(file, 'utf8')) as TestState;
  if (state.postgres) stopPostgres(state.postgres);
  const { failures } = checkRecordedAuditEvents(state.dir);
  rmSync(state.dir, { recursive: true, force: true });
  if (failures.length > 0) {
    throw new Error(`${failures.length} audit record(s) of the ${state.kind} run failed the OCSF and secrets check:\n${failures.slice(0, 20).join('\n')}`);
  }
}

export default async function globalTeardown(): Promise<void> {
  const file = process.env.AG_TEST_STATE;
  if (file) endTestState(file);
}
