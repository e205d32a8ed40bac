/**
 * The whole suite's reporter (jest.suite.config.js, docs/testing.md): when the run ends it writes
 * the run's passed test ids (`test-results/ids.txt`, the smoke set's `smoke-ids.txt`, for
 * `npm run test:baseline`) and every file's time (`files.txt`), prints the 20 slowest files, checks that every id of
 * test/baseline-ids.txt ran (the whole suite with PostgreSQL; under CI=true the whole suite without
 * it fails), and ends with one line: `N passed, N failed, N skipped`. A missing id fails the run.
 */
const { mkdirSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const plan = require('./test-plan');
const baseline = require('./baseline-ids');

const ROOT = join(__dirname, '..', '..');
const ci = process.env.CI === 'true' || process.env.CI === '1';

class SuiteReporter {
  constructor(_globalConfig, options = {}) {
    this.smoke = Boolean(options.smoke);
    this.postgres = Boolean(options.postgres);
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const out = (text) => process.stdout.write(text);
    const ran = [];
    const files = [];
    for (const file of results.testResults) {
      const path = relative(ROOT, file.testFilePath);
      const where = file.displayName?.name ?? 'unit';
      files.push({ path, where, seconds: (file.perfStats.end - file.perfStats.start) / 1000 });
      for (const test of file.testResults) ran.push({ kind: where, path, name: test.fullName, status: test.status });
    }
    const resultsDir = join(ROOT, 'test-results');
    mkdirSync(resultsDir, { recursive: true });
    // The smoke set writes its own list, so a smoke run after the whole suite keeps the suite's ids for `npm run test:baseline`.
    writeFileSync(join(resultsDir, this.smoke ? 'smoke-ids.txt' : 'ids.txt'), baseline.format(ran.filter((t) => t.status === 'passed')));

    files.sort((a, b) => b.seconds - a.seconds);
    // Every file's time, slowest first: where the run's time goes (docs/testing.md, "CI time").
    writeFileSync(join(resultsDir, this.smoke ? 'smoke-files.txt' : 'files.txt'), files.map((f) => `${f.seconds.toFixed(1)}\t${f.where}\t${f.path}\n`).join(''));
    out('\nThe 20 slowest test files:\n');
    for (const f of files.slice(0, 20)) out(`${f.seconds.toFixed(1).padStart(7)} s  ${f.where.padEnd(8)}  ${f.path}\n`);

    const failures = [];
    if (!this.smoke && this.postgres) {
      const missing = baseline.missing(baseline.read(), ran, plan.runsOnce);
      if (missing.length > 0) {
        failures.push(`${missing.length} test id(s) of test/baseline-ids.txt did not run`);
        out(`\nThese ids of test/baseline-ids.txt did not run:\n${missing.slice(0, 50).map((l) => `  ${l}`).join('\n')}\n`);
      } else {
        out(`\nEvery id of test/baseline-ids.txt ran (${baseline.read().length}).\n`);
      }
    } else if (!this.smoke && ci) {
      failures.push('the baseline check needs both databases');
    }
    for (const f of failures) out(`\nFAILED: ${f}\n`);
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    const closing = `${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`;
    out(`\n${closing}\n`);
    // scripts/test.js prints it again as the run's last line, after Jest's own summary.
    writeFileSync(join(resultsDir, this.smoke ? 'smoke-summary.txt' : 'summary.txt'), `${[...failures.map((f) => `FAILED: ${f}`), closing].join('\n')}\n`);
    if (failures.length > 0) this.error = new Error(failures.join('; '));
  }

  getLastError() {
    return this.error;
  }
}

module.exports = SuiteReporter;
