import { ensureSourceTemplate } from './embedded-template-setup';
import { prepareTestState } from './global-setup';
import { suiteStateVariable, type TestDatabaseKind } from './test-state';

/**
 * The whole suite's global setup (`jest.suite.config.js`, docs/testing.md): one database state for
 * each database the suite's projects run on (`AG_SUITE_DATABASES`), prepared at once; each test
 * file takes its project's (test/helpers/suite-database.ts).
 */
export default async function suiteGlobalSetup(): Promise<void> {
  await ensureSourceTemplate();
  const kinds = (process.env.AG_SUITE_DATABASES ?? '').split(',').filter(Boolean) as TestDatabaseKind[];
  const files = await Promise.all(kinds.map((kind) => prepareTestState(kind)));
  kinds.forEach((kind, i) => (process.env[suiteStateVariable(kind)] = files[i]));
}
