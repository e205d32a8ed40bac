/**
 * The whole suite (`npm test`) and the smoke set (`npm test -- --smoke`) as one Jest run
 * (docs/testing.md, "How the suite runs"): a project per place the tests run (`unit`, `embedded`,
 * `postgres`, from `scripts/lib/test-plan.js`), all sharing Jest's workers, which take the files
 * from one queue. One global setup prepares a database state for each database; each e2e file
 * takes its project's (test/helpers/suite-database.ts). The suite reporter writes the run's test
 * ids, checks them against test/baseline-ids.txt and prints the slowest files.
 * `AG_SUITE=smoke` selects the smoke set; scripts/test.js sets it and `AG_SUITE_POSTGRES`.
 */
const base = require('./jest.config');
const plan = require('./scripts/lib/test-plan');

const smoke = process.env.AG_SUITE === 'smoke';
const postgres = process.env.AG_SUITE_POSTGRES === '1';
const [unit, e2e] = base.projects;

const projects = plan.suiteProjects({ smoke, postgres }).map(({ name, database, files }) => {
  const testMatch = files.map((f) => `<rootDir>/${f}`);
  if (!database) return { ...unit, testMatch };
  const { globalSetup: _setup, globalTeardown: _teardown, ...shared } = e2e;
  return {
    ...shared,
    displayName: name,
    testMatch,
    globals: { AG_SUITE_DATABASE: database },
    setupFiles: ['<rootDir>/test/helpers/suite-database.ts'],
  };
});
process.env.AG_SUITE_DATABASES = [...new Set(projects.map((p) => p.globals?.AG_SUITE_DATABASE).filter(Boolean))].join(',');

module.exports = {
  testTimeout: base.testTimeout,
  // The machine's two cores (docs/testing.md, "How the suite runs").
  maxWorkers: 2,
  // A worker is replaced by a fresh one after a file once its heap passes this: in one long-lived
  // process each file leaves some 30-50 MB behind, and the garbage collector's work grows with it.
  workerIdleMemoryLimit: '512MB',
  globalSetup: '<rootDir>/test/helpers/suite-global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/suite-global-teardown.ts',
  reporters: ['default', ['<rootDir>/scripts/lib/suite-reporter.js', { smoke, postgres }]],
  projects,
};
