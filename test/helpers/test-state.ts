import { readFileSync } from 'node:fs';

export type TestDatabaseKind = 'embedded' | 'postgres';

export interface TestState {
  kind: TestDatabaseKind;
  dir: string;
  snapshotFile?: string;
  postgres?: { port: number; dir: string; bin: string };
}

export function testDatabaseKind(): TestDatabaseKind {
  const kind = process.env.TEST_DATABASE ?? 'embedded';
  if (kind !== 'embedded' && kind !== 'postgres') throw new Error(`TEST_DATABASE must be embedded or postgres, not ${kind}`);
  return kind;
}

export function readTestState(): TestState {
  const file = process.env.AG_TEST_STATE;
  if (!file) throw new Error('AG_TEST_STATE is not set: run e2e tests through jest (global setup)');
  return JSON.parse(readFileSync(file, 'utf8')) as TestState;
}

/** The environment variable holding the state file of the whole suite's run on `kind` (test/helpers/suite-global-setup.ts). */
export const suiteStateVariable = (kind: TestDatabaseKind): string => `AG_TEST_STATE_${kind.toUpperCase()}`;
