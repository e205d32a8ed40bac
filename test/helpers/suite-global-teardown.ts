import { endTestState } from './global-teardown';
import { suiteStateVariable, type TestDatabaseKind } from './test-state';

/** Ends every database state of the whole suite's run; a failed audit record check of any fails the run. */
export default async function suiteGlobalTeardown(): Promise<void> {
  const errors: string[] = [];
  for (const kind of ['embedded', 'postgres'] as TestDatabaseKind[]) {
    const file = process.env[suiteStateVariable(kind)];
    if (!file) continue;
    try {
      endTestState(file);
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  if (errors.length > 0) throw new Error(errors.join('\n'));
}
