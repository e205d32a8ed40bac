import { suiteStateVariable, type TestDatabaseKind } from './test-state';

/**
 * The whole suite's projects run e2e files on each database in one Jest run
 * (`jest.suite.config.js`): before a file loads, this sets what the e2e helpers read, the
 * project's database (`TEST_DATABASE`, from the project's `globals`) and its run state
 * (`AG_TEST_STATE`). Both are the test file's own copy of the environment.
 */
const kind = (globalThis as { AG_SUITE_DATABASE?: TestDatabaseKind }).AG_SUITE_DATABASE;
if (kind) {
  process.env.TEST_DATABASE = kind;
  const state = process.env[suiteStateVariable(kind)];
  if (state) process.env.AG_TEST_STATE = state;
}
