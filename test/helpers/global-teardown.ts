import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { stopPostgres } from './postgres-server';
import type { TestState } from './test-state';

export default async function globalTeardown(): Promise<void> {
  const file = process.env.AG_TEST_STATE;
  if (!file) return;
  const state = JSON.parse(readFileSync(file, 'utf8')) as TestState;
  if (state.postgres) stopPostgres(state.postgres);
  // The audit records test/helpers/audit-record-check.ts found wrong (invalid OCSF, a secret): the run fails.
  const failures = join(state.dir, 'audit-record-failures.ndjson');
  const lines = existsSync(failures) ? readFileSync(failures, 'utf8').trim().split('\n').filter(Boolean) : [];
  rmSync(state.dir, { recursive: true, force: true });
  if (lines.length > 0) {
    throw new Error(`${lines.length} audit record(s) failed the OCSF and secrets check:\n${lines.slice(0, 20).join('\n')}`);
  }
}
