import { readFileSync, rmSync } from 'node:fs';
import { stopPostgres } from './postgres-server';
import type { TestState } from './test-state';

export default async function globalTeardown(): Promise<void> {
  const file = process.env.AG_TEST_STATE;
  if (!file) return;
  const state = JSON.parse(readFileSync(file, 'utf8')) as TestState;
  if (state.postgres) stopPostgres(state.postgres);
  rmSync(state.dir, { recursive: true, force: true });
}
