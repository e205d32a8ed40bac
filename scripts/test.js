#!/usr/bin/env node
/**
 * The whole suite (docs/testing.md): the unit tests, and the e2e tests on the embedded database
 * and on a real PostgreSQL that the test helper starts itself. With the PostgreSQL server
 * binaries present, the work is cut into parts (each a Jest process with one worker: a part of
 * the embedded database's files, a part of PostgreSQL's, the browser files, the
 * other files that run once, the unit tests) and two lanes (the machine's two cores) take the
 * parts from one queue, the largest first, so both lanes end at about the same time. The files of
 * `scripts/lib/test-plan.js` that need one run only (browser, database-independent and several-instance files) run
 * on PostgreSQL. Without the binaries, every file runs on the embedded database. Under CI=true
 * missing PostgreSQL binaries or Chromium fail the run, and every test id of
 * `test/baseline-ids.txt` must have run.
 *
 *   node scripts/test.js                 the whole suite
 *   node scripts/test.js --smoke         the smoke set (test-plan.js), on both databases
 *   node scripts/test.js -- <jest args>  extra arguments for every Jest process
 *
 * Ends with the 20 slowest files and one line: `N passed, N failed, N skipped`. Each run's test
 * ids are written to `test-results/ids.txt` (the smoke set's to `smoke-ids.txt`; `npm run test:baseline` adds new ones to the
 * baseline).
 */
const { spawn } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync } = require('node:fs');
const { join, relative } = require('node:path');
const { findPostgresBin } = require('./lib/postgres');
const plan = require('./lib/test-plan');
const baseline = require('./lib/baseline-ids');

const ROOT = join(__dirname, '..');
const ci = process.env.CI === 'true' || process.env.CI === '1';
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const dashDash = args.indexOf('--');
const extraArgs = dashDash >= 0 ? args.slice(dashDash + 1) : args.filter((a) => a !== '--smoke');
const jest = require.resolve('jest/bin/jest');
const resultsDir = join(ROOT, 'test-results');

const started = Date.now();
/** The heap after which a Jest worker is replaced by a fresh one (between files). */
const WORKER_MEMORY = '512MB';
/** Jest processes at once: the machine's two cores. */
const LANES = 2;
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

/** The embedded database's initdb template beside the sources, for services the tests start from them. */
function prepareEmbeddedTemplate() {
  const t = Date.now();
  const out = require('node:child_process').spawnSync(
    process.execPath,
    ['-r', join(ROOT, 'test/helpers/register-ts.cjs'), join(ROOT, 'test/helpers/embedded-template-setup.ts')],
    { stdio: 'inherit', cwd: ROOT },
  );
  if (out.status !== 0) throw new Error('could not prepare the embedded database template');
  process.stdout.write(`embedded database template ready (${seconds(Date.now() - t)})\n`);
}

/** One Jest process; its output is kept and printed whole when it ends, so two runs do not interleave. */
function runJest(run) {
  const resultFile = join(resultsDir, `${run.name}.json`);
  rmSync(resultFile, { force: true });
  // One worker, in a child process that is replaced once its heap passes WORKER_MEMORY after a file:
  // in one long-lived process (Jest's in-band mode) each file leaves some 30-50 MB behind, and the
  // garbage collector's work grows with it over 40-80 files.
  const argv = [jest, '--json', `--outputFile=${resultFile}`, '--maxWorkers=1', `--workerIdleMemoryLimit=${WORKER_MEMORY}`,
    '--selectProjects', ...run.projects, ...extraArgs, '--', ...run.files];
  const t = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, ...run.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (status) => {
      const at = run.lane ? `, lane ${run.lane}, ${seconds(t - started)}–${seconds(Date.now() - started)} after the start` : '';
      process.stdout.write(`\n=== ${run.label} (${seconds(Date.now() - t)}${at}, exit ${status}) ===\n`);
      process.stdout.write(Buffer.concat(chunks));
      const results = existsSync(resultFile) ? JSON.parse(readFileSync(resultFile, 'utf8')) : undefined;
      resolve({ run, status, results });
    });
  });
}

/**
 * Runs the parts (in the order given: the largest first) on `lanes` lanes: each lane starts the
 * next part of the queue when its last one ends. Resolves with every part's outcome.
 */
async function runInLanes(parts, lanes) {
  const queue = [...parts];
  const outcomes = [];
  const lane = async (n) => {
    for (let part = queue.shift(); part; part = queue.shift()) outcomes.push(await runJest({ ...part, lane: n }));
  };
  await Promise.all(Array.from({ length: lanes }, (_, i) => lane(i + 1)));
  return outcomes;
}

async function main() {
  mkdirSync(resultsDir, { recursive: true });
  const pgBin = findPostgresBin();
  const failures = [];
  if (!pgBin) {
    if (ci) failures.push('CI=true but the PostgreSQL server binaries are missing (install postgresql-15)');
    else process.stdout.write('\nSkipping the PostgreSQL run: no PostgreSQL server binaries (Debian package postgresql-15).\n');
  }
  prepareEmbeddedTemplate();

  const e2e = plan.e2eFiles();
  const embedded = { TEST_DATABASE: 'embedded' };
  const postgres = { TEST_DATABASE: 'postgres' };
  let outcomes;
  if (smoke) {
    const runs = [{ name: 'smoke-embedded', label: 'smoke set on the embedded database', projects: ['e2e'], env: embedded,
      files: plan.SMOKE.filter((f) => !(pgBin && plan.BROWSER.test(f))) }];
    if (pgBin) runs.push({ name: 'smoke-postgres', label: 'smoke set on PostgreSQL', projects: ['e2e'], env: postgres, files: plan.SMOKE });
    outcomes = await Promise.all(runs.map(runJest));
  } else if (pgBin) {
    outcomes = await runInLanes(plan.parts(), LANES);
  } else {
    outcomes = [await runJest({ name: 'embedded', label: 'unit + e2e on the embedded database', projects: ['unit', 'e2e'], env: embedded,
      files: [...plan.unitFiles(), ...e2e] })];
  }

  const totals = { passed: 0, failed: 0, skipped: 0 };
  const files = [];
  const ran = [];
  for (const { run, status, results } of outcomes) {
    if (!results) {
      failures.push(`${run.label}: Jest wrote no results (exit ${status})`);
      totals.failed += 1;
      continue;
    }
    if (status !== 0) failures.push(`${run.label}: Jest exited ${status}`);
    totals.passed += results.numPassedTests;
    totals.failed += results.numFailedTests + (results.numRuntimeErrorTestSuites || 0);
    totals.skipped += results.numPendingTests + (results.numTodoTests || 0);
    const database = run.env.TEST_DATABASE ?? 'unit';
    for (const file of results.testResults) {
      const path = relative(ROOT, file.name);
      files.push({ path, database, seconds: (file.endTime - file.startTime) / 1000 });
      for (const test of file.assertionResults) ran.push({ kind: path.startsWith('test/') ? database : 'unit', path, name: test.fullName, status: test.status });
    }
  }
  // The smoke set writes its own list, so a smoke run after the whole suite keeps the suite's ids for `npm run test:baseline`.
  writeFileSync(join(resultsDir, smoke ? 'smoke-ids.txt' : 'ids.txt'), baseline.format(ran.filter((t) => t.status === 'passed')));

  files.sort((a, b) => b.seconds - a.seconds);
  process.stdout.write('\nThe 20 slowest test files:\n');
  for (const f of files.slice(0, 20)) process.stdout.write(`${f.seconds.toFixed(1).padStart(7)} s  ${f.database.padEnd(8)}  ${f.path}\n`);

  if (!smoke && pgBin) {
    const missing = baseline.missing(baseline.read(), ran, plan.runsOnce);
    if (missing.length > 0) {
      failures.push(`${missing.length} test id(s) of test/baseline-ids.txt did not run`);
      process.stdout.write(`\nThese ids of test/baseline-ids.txt did not run:\n${missing.slice(0, 50).map((l) => `  ${l}`).join('\n')}\n`);
    } else {
      process.stdout.write(`\nEvery id of test/baseline-ids.txt ran (${baseline.read().length}).\n`);
    }
  } else if (!smoke && ci) {
    failures.push('the baseline check needs both databases');
  }

  for (const f of failures) process.stdout.write(`\nFAILED: ${f}\n`);
  process.stdout.write(`\n${smoke ? 'smoke set' : 'whole suite'} on Node ${process.version} in ${seconds(Date.now() - started)}\n`);
  process.stdout.write(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
  process.exit(failures.length > 0 || totals.failed > 0 ? 1 : 0);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
