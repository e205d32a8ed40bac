/**
 * Which test files run where (docs/testing.md, "How the suite runs"). The whole suite runs the
 * unit tests and every e2e file on both databases, except the files named here, which run once:
 *
 * - browser files (`*-browser.e2e-spec.ts`): Chromium drives the pages; the pages' behaviour on
 *   each database is covered by the pages' HTTP tests, which run on both. They run on PostgreSQL.
 * - database-independent files: what they check does not touch the suite's database (a static
 *   scan of the sources, the process's own embedded data folder, start-up refusals before any
 *   connection, the route and OpenAPI descriptions built from the code).
 * - files that start several service processes on one database (`SEVERAL_INSTANCES`): they run
 *   on PostgreSQL, the only database several processes can share.
 *
 * The smoke set is what the second Node line runs: boot, discovery, the 401, a tool call in each
 * protocol generation, sign-in, consent in Chromium, on both databases; like the whole suite, it
 * runs the files named below once.
 */
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');

const BROWSER = /-browser\.e2e-spec\.ts$/;

/** Files whose assertions do not depend on the suite's database, each with why. */
const DATABASE_INDEPENDENT = {
  'test/architecture.e2e-spec.ts': 'reads the source tree and the import rules; starts no service',
  'test/backup.e2e-spec.ts': 'backs up and restores its own embedded data folder, whatever the suite database',
  'test/request-log.e2e-spec.ts': 'a service process on its own embedded data folder; checks its log lines',
  'test/startup.e2e-spec.ts': 'configurations refused before any database connection',
  'test/openapi.e2e-spec.ts': 'the OpenAPI document, built from the code',
  'test/route-access.e2e-spec.ts': "the routes' declared access, read from the code",
  'test/test-idp.e2e-spec.ts': "the tests' identity provider against the specifications; starts no gateway",
};

/**
 * Files that start several service processes on one database: they need the real PostgreSQL
 * (two processes cannot share the embedded one), so they run on PostgreSQL only.
 */
const SEVERAL_INSTANCES = {
  'test/scim-two-instances.e2e-spec.ts': 'two service processes on one PostgreSQL: a SCIM deactivation through one, refused by the other',
  'test/sso-state-two-instances.e2e-spec.ts': 'two gateways on one PostgreSQL: a single sign-on answer replayed with its state on the other is refused',
  'test/id-jag-two-instances.e2e-spec.ts': 'two gateways on one PostgreSQL: an ID-JAG traded through one is refused by the other, and of concurrent trades on both exactly one wins',
  'test/policy-two-instances.e2e-spec.ts': 'two gateways on one PostgreSQL: a policy saved through one applies on the other at its next call, and of two saves from one version the second gets 409',
  'test/approvals-two-instances.e2e-spec.ts': 'two gateways on one PostgreSQL: an approved call retried on both at once runs once, and a requestState minted by one is honoured by the other',
  'test/audit-two-instances.e2e-spec.ts': 'two gateways writing one organisation\'s audit records at once on one PostgreSQL, and a gateway process killed (-9) under load, restarted',
  'test/audit-otlp-stream.e2e-spec.ts': 'gateway processes streaming audit logs to an OTLP collector that goes down, killed (-9) and restarted on one PostgreSQL',
  'test/audit-verify-sink-copy.e2e-spec.ts': 'the command line verifying a chain beside a running gateway on one PostgreSQL',
  'test/audit-sinks-processes.e2e-spec.ts': 'gateway processes stopped, restarted and killed (-9) while an audit sink refuses and then accepts, and two gateways delivering one organisation to a sink on one PostgreSQL',
};

/** The smoke set: file, and the part of it that runs (a test name pattern), or the whole file. */
const SMOKE = [
  'test/startup.e2e-spec.ts',
  'test/discovery.e2e-spec.ts',
  'test/mcp-auth.e2e-spec.ts',
  'test/mcp-protocol.e2e-spec.ts',
  'test/machine-flow.e2e-spec.ts',
  'test/auth.e2e-spec.ts',
  'test/consent-new-project-browser.e2e-spec.ts',
];

function list(dir, pattern) {
  const out = [];
  const walk = (rel) => {
    for (const entry of readdirSync(join(ROOT, rel), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (pattern.test(entry.name)) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

const unitFiles = () => [...list('libs', /\.spec\.ts$/), ...list('apps', /\.spec\.ts$/)];
const e2eFiles = () => list('test', /\.e2e-spec\.ts$/);

/** Files that run on one database only when both are there; on PostgreSQL. */
function runsOnce(file) {
  return BROWSER.test(file) || Object.prototype.hasOwnProperty.call(DATABASE_INDEPENDENT, file) || Object.prototype.hasOwnProperty.call(SEVERAL_INSTANCES, file);
}

/**
 * The whole suite's (or the smoke set's) Jest projects, for `jest.suite.config.js`: each a name
 * (`unit`, `embedded`, `postgres`: the test ids' "where"), the database its e2e files run on, and
 * its files. With PostgreSQL: the unit tests, every e2e file on PostgreSQL, and on the embedded
 * database those that do not run once. Without it: the unit tests and every e2e file on the
 * embedded database. The smoke set: its files the same way (its browser file and the
 * database-independent start-up refusals on PostgreSQL only).
 */
function suiteProjects({ smoke = false, postgres = true } = {}) {
  const e2e = smoke ? SMOKE : e2eFiles();
  const projects = [];
  if (!smoke) projects.push({ name: 'unit', files: unitFiles() });
  projects.push({ name: 'embedded', database: 'embedded', files: postgres ? e2e.filter((f) => !runsOnce(f)) : e2e });
  if (postgres) projects.push({ name: 'postgres', database: 'postgres', files: e2e });
  return projects.filter((p) => p.files.length > 0);
}

module.exports = { BROWSER, DATABASE_INDEPENDENT, SEVERAL_INSTANCES, SMOKE, unitFiles, e2eFiles, runsOnce, suiteProjects };
