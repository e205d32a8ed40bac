#!/usr/bin/env node
/**
 * The whole suite: unit and e2e tests on the embedded database, then the e2e tests again on a
 * real PostgreSQL that the test helper starts itself. Where a laptop lacks the PostgreSQL
 * server binaries or Chromium, those parts are skipped with a notice; under CI=true they are
 * required and their absence fails the run.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync, mkdtempSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');
const { findPostgresBin } = require('./lib/postgres');

const ci = process.env.CI === 'true' || process.env.CI === '1';
const extraArgs = process.argv.slice(2);
const jest = require.resolve('jest/bin/jest');


const totals = { passed: 0, failed: 0, skipped: 0 };
let failedRuns = 0;

function runJest(label, args, env) {
  const out = mkdtempSync(join(tmpdir(), 'ag-jest-'));
  const resultFile = join(out, 'results.json');
  process.stdout.write(`\n=== ${label} ===\n`);
  const result = spawnSync(process.execPath, [jest, '--json', `--outputFile=${resultFile}`, ...args, ...extraArgs], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (existsSync(resultFile)) {
    const r = JSON.parse(readFileSync(resultFile, 'utf8'));
    totals.passed += r.numPassedTests;
    totals.failed += r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
    totals.skipped += r.numPendingTests + (r.numTodoTests || 0);
  } else {
    totals.failed += 1;
  }
  rmSync(out, { recursive: true, force: true });
  if (result.status !== 0) failedRuns += 1;
}

runJest('unit + e2e on the embedded database', ['--selectProjects', 'unit', 'e2e'], { TEST_DATABASE: 'embedded' });

if (findPostgresBin()) {
  runJest('e2e on PostgreSQL', ['--selectProjects', 'e2e'], { TEST_DATABASE: 'postgres' });
} else if (ci) {
  process.stdout.write('\nCI=true but the PostgreSQL server binaries are missing (install postgresql-15): failing.\n');
  failedRuns += 1;
  totals.failed += 1;
} else {
  process.stdout.write('\nSkipping the PostgreSQL run: no PostgreSQL server binaries (Debian package postgresql-15).\n');
}

process.stdout.write(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(failedRuns > 0 ? 1 : 0);
