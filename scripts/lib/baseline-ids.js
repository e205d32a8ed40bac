#!/usr/bin/env node
/**
 * `test/baseline-ids.txt`: every test that must run in the whole suite, one line each,
 * `<where>\t<file>\t<full name>`, where is `unit`, `embedded` or `postgres`. The whole suite
 * fails when a listed id did not run (passed or failed; skipped does not count). A file of
 * `test-plan.js` that runs once may satisfy its ids of either database on the one it ran on.
 *
 *   node scripts/lib/baseline-ids.js --add   adds the ids of the last run (test-results/ids.txt)
 *                                             that the baseline lacks
 * Ids are only added this way; an id leaves the baseline by hand, with its reason in the commit.
 */
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const FILE = join(ROOT, 'test', 'baseline-ids.txt');
const LAST_RUN = join(ROOT, 'test-results', 'ids.txt');

const clean = (s) => s.replace(/[\t\r\n]/g, ' ');
const line = (t) => `${t.kind}\t${t.path}\t${clean(t.name)}`;

function format(tests) {
  return `${[...new Set(tests.map(line))].sort().join('\n')}\n`;
}

function parse(text) {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [kind, path, ...name] = l.split('\t');
      return { kind, path, name: name.join('\t') };
    });
}

function read(file = FILE) {
  return existsSync(file) ? parse(readFileSync(file, 'utf8')) : [];
}

/** The baseline's lines that did not run: `ran` holds this run's tests with their status. */
function missing(listed, ran, runsOnce) {
  const done = new Set();
  const doneAnywhere = new Set();
  for (const t of ran) {
    if (t.status !== 'passed' && t.status !== 'failed') continue;
    done.add(line(t));
    doneAnywhere.add(`${t.path}\t${clean(t.name)}`);
  }
  return listed
    .filter((t) => !done.has(line(t)) && !(t.kind !== 'unit' && runsOnce(t.path) && doneAnywhere.has(`${t.path}\t${clean(t.name)}`)))
    .map(line);
}

if (require.main === module) {
  if (process.argv[2] !== '--add') {
    process.stderr.write('usage: node scripts/lib/baseline-ids.js --add\n');
    process.exit(2);
  }
  if (!existsSync(LAST_RUN)) {
    process.stderr.write('no test-results/ids.txt: run `npm test` first\n');
    process.exit(2);
  }
  const header = existsSync(FILE) ? readFileSync(FILE, 'utf8').split('\n').filter((l) => l.startsWith('#')) : [];
  const have = read();
  const known = new Set(have.map(line));
  const added = read(LAST_RUN).filter((t) => !known.has(line(t)));
  writeFileSync(FILE, `${header.join('\n')}${header.length ? '\n' : ''}${format([...have, ...added])}`);
  process.stdout.write(`${added.length} id(s) added to test/baseline-ids.txt\n`);
}

module.exports = { format, parse, read, missing };
