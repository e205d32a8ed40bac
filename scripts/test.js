#!/usr/bin/env node
/**
 * The whole suite (docs/testing.md): the unit tests, and the e2e tests on the embedded database
 * and on a real PostgreSQL that the test helper starts itself, as one Jest run of the projects of
 * `jest.suite.config.js` on Jest's own workers (one per core). The files of
 * `scripts/lib/test-plan.js` that need one run only (browser, database-independent and
 * several-instance files) run on PostgreSQL. Without the PostgreSQL server binaries, every file
 * runs on the embedded database. Under CI=true missing PostgreSQL binaries or Chromium fail the
 * run, and every test id of `test/baseline-ids.txt` must have run (the suite's reporter,
 * `scripts/lib/suite-reporter.js`).
 *
 *   node scripts/test.js                 the whole suite
 *   node scripts/test.js --smoke         the smoke set (test-plan.js), on both databases
 *   node scripts/test.js -- <jest args>  extra arguments for Jest
 *
 * Ends with the 20 slowest files and one line: `N passed, N failed, N skipped`. The run's test
 * ids are written to `test-results/ids.txt` (the smoke set's to `smoke-ids.txt`; `npm run
 * test:baseline` adds new ones to the baseline).
 */
const { spawn, spawnSync } = require('node:child_process');
const { existsSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { findPostgresBin } = require('./lib/postgres');

const ROOT = join(__dirname, '..');
const ci = process.env.CI === 'true' || process.env.CI === '1';
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const dashDash = args.indexOf('--');
const extraArgs = dashDash >= 0 ? args.slice(dashDash + 1) : args.filter((a) => a !== '--smoke');
const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

/** The embedded database's initdb template beside the sources, for services the tests start from them. */
function prepareEmbeddedTemplate() {
  const t = Date.now();
  const out = spawnSync(process.execPath, ['-r', join(ROOT, 'test/helpers/register-ts.cjs'), join(ROOT, 'test/helpers/embedded-template-setup.ts')], {
    stdio: 'inherit',
    cwd: ROOT,
  });
  if (out.status !== 0) throw new Error('could not prepare the embedded database template');
  process.stdout.write(`embedded database template ready (${seconds(Date.now() - t)})\n`);
}

function main() {
  const pgBin = findPostgresBin();
  if (!pgBin) {
    if (ci) {
      process.stdout.write('\nFAILED: CI=true but the PostgreSQL server binaries are missing (install postgresql-15)\n');
      process.exit(1);
    }
    process.stdout.write('\nSkipping the PostgreSQL run: no PostgreSQL server binaries (Debian package postgresql-15).\n');
  }
  prepareEmbeddedTemplate();
  const summary = join(ROOT, 'test-results', smoke ? 'smoke-summary.txt' : 'summary.txt');
  rmSync(summary, { force: true });
  const env = { ...process.env, AG_SUITE: smoke ? 'smoke' : 'whole', AG_SUITE_POSTGRES: pgBin ? '1' : '0' };
  const child = spawn(process.execPath, [require.resolve('jest/bin/jest'), '--config', join(ROOT, 'jest.suite.config.js'), ...extraArgs], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  });
  child.on('close', (status, signal) => {
    const what = smoke ? 'smoke set' : 'whole suite';
    if (status !== 0) process.stdout.write(`\nFAILED: Jest exited ${status ?? signal}\n`);
    process.stdout.write(`\n${what} on Node ${process.version} in ${seconds(Date.now() - started)}\n`);
    // The suite reporter's closing lines (scripts/lib/suite-reporter.js), last.
    if (existsSync(summary)) process.stdout.write(`\n${readFileSync(summary, 'utf8')}`);
    process.exit(status === 0 ? 0 : 1);
  });
}

main();
