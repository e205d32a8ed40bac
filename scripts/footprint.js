#!/usr/bin/env node
/**
 * The embedded database's memory footprint (docs/performance.md, "Embedded footprint"):
 *
 *   node scripts/footprint.js [--rounds N] [--shared-buffers MB] [--folders small,large]     # after `npm run build`
 *
 * 1. Starts the built service (dist/) with the embedded database twice on one new data folder:
 *    the first start (empty folder: the pre-initialised template is copied, or without one
 *    initdb runs in a child process; then the migrations) and a second start (existing folder).
 *    For each: seconds until /health/ready, the peak resident memory of the process (VmHWM) and
 *    its resident memory after 10 s idle (VmRSS).
 * 2. PGlite alone in a bare Node process, to see where the memory goes: creating a new folder
 *    (initdb), opening an existing one with PGlite's defaults, and as the service opens it (its
 *    PostgreSQL settings and V8 flags, `embeddedStartParams()`/`EMBEDDED_V8_FLAGS`).
 * 3. Query speed, PGlite's defaults against the service's settings, on two copies of the migrated
 *    folder: a small one (200 agent tokens over 20 projects, 2,000 tasks: 16 MB of shared
 *    buffers hold it) and a large one (20,000 tokens over 2,000 projects, 100,000
 *    tasks: a 58 MB database). A mix per iteration (a token looked up by
 *    hash, a project's first page of tasks, a task by id, a task inserted and deleted) in
 *    alternating rounds (default 3): CPU time per iteration after a warm-up, the median of the
 *    rounds.
 * Prints one JSON document.
 */
const { spawn } = require('node:child_process');
const { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { freePort } = require('./lib/postgres');

const root = join(__dirname, '..');
const main = join(root, 'dist/apps/gateway/src/main.js');
const embedded = join(root, 'dist/libs/database/src/embedded-postgres.js');
const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;
/** `--shared-buffers MB`: the service's settings with this `EMBEDDED_SHARED_BUFFERS_MB` instead of shared buffers sized to the data. */
const buffersArg = process.argv.indexOf('--shared-buffers');
const SHARED_BUFFERS_MB = buffersArg > 0 ? Number(process.argv[buffersArg + 1]) : undefined;
/** `--folders small,large`: which query folders to measure (both by default). */
const foldersArg = process.argv.indexOf('--folders');
const FOLDERS = foldersArg > 0 ? process.argv[foldersArg + 1].split(',') : ['small', 'large'];
if (SHARED_BUFFERS_MB !== undefined && !(Number.isInteger(SHARED_BUFFERS_MB) && SHARED_BUFFERS_MB > 0)) {
  console.error('--shared-buffers takes a whole number of MB');
  process.exit(2);
}

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function startOnce(dataDir) {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...(SHARED_BUFFERS_MB ? { EMBEDDED_SHARED_BUFFERS_MB: String(SHARED_BUFFERS_MB) } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  const readySeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const atReady = memory(child.pid);
  await sleep(10_000);
  const idle = memory(child.pid);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { readySeconds: Math.round(readySeconds * 100) / 100, peakMb: idle.peakMb, rssAtReadyMb: atReady.rssMb, idleRssMb: idle.rssMb };
}

/** Runs `script` in a bare Node process (with `flags`) and parses the JSON line it prints. */
function runScript(script, args, flags = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, '-e', script, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`a PGlite script exited with ${code}`))));
  });
}

const PRELUDE = `
  const { PGlite } = require('@electric-sql/pglite');
  const { cpSync, readFileSync, rmSync } = require('node:fs');
  const kb = (n) => Number(new RegExp('^' + n + ':\\\\s+(\\\\d+) kB', 'm').exec(readFileSync('/proc/self/status', 'utf8'))[1]);
  const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
  const [dataDir, settings] = process.argv.slice(1);
  const sizing = require(${JSON.stringify(embedded)});
  // As the service opens the folder: its shared buffers configured, or sized to the folder's data.
  const startParamsFor = (dir) => settings === 'service' ? sizing.embeddedStartParams(${SHARED_BUFFERS_MB ?? 'undefined'} ?? sizing.automaticSharedBuffersMb(dir)) : undefined;
`;

/** PGlite alone opening (or creating) `dataDir`: seconds, CPU, peak and resident memory. */
function pgliteAlone(dataDir, settings) {
  const script = `${PRELUDE}
    (async () => {
      const t = Date.now(); const c = cpu();
      const startParams = startParamsFor(dataDir);
      const db = await PGlite.create({ dataDir, ...(startParams ? { startParams } : {}) });
      await db.query('SELECT 1');
      const seconds = (Date.now() - t) / 1000; const cpuSeconds = (cpu() - c) / 1e6;
      await db.close();
      console.log(JSON.stringify({ seconds, cpuSeconds, peakMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024) }));
    })();`;
  return runScript(script, [dataDir, settings], settings === 'service' ? v8Flags() : []);
}

function v8Flags() {
  return require(embedded).EMBEDDED_V8_FLAGS;
}

/** Fills a copy of the migrated folder: `projects` projects, ten tokens and 50 tasks each. */
function seedQueriesFolder(dataDir, projects) {
  const script = `${PRELUDE}
    const projects = ${projects};
    (async () => {
      const db = await PGlite.create({ dataDir });
      const [org] = (await db.query("INSERT INTO organizations (name) VALUES ('Footprint') RETURNING id")).rows;
      await db.query("INSERT INTO projects (organization_id, name) SELECT $1, 'p ' || g FROM generate_series(1, $2::int) g", [org.id, projects]);
      await db.query(\`INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, client_id, expires_at)
        SELECT encode(sha256(('t' || g)::bytea), 'hex'), 'oauth', $1, p.id, ARRAY['project:read','tasks:read','tasks:write'], 'c', now() + interval '10 days'
          FROM generate_series(1, $2::int * 10) g JOIN LATERAL (SELECT id FROM projects WHERE organization_id = $1 AND name = 'p ' || (g % $2::int + 1)) p ON true\`, [org.id, projects]);
      await db.query(\`INSERT INTO tasks (project_id, title, description, status)
        SELECT p.id, 'task ' || g, repeat('x', 200), 'todo' FROM generate_series(1, 50) g CROSS JOIN (SELECT id FROM projects WHERE organization_id = $1) p\`, [org.id]);
      await db.exec('VACUUM ANALYZE');
      await db.exec('CHECKPOINT');
      await db.close();
      console.log('{}');
    })();`;
  return runScript(script, [dataDir, 'default']);
}

/** The query mix on a copy of `seeded` (`projects` projects): CPU and wall time per iteration after a warm-up. */
function queries(seeded, projectCount, scratch, settings) {
  const script = `${PRELUDE}
    const tokens = ${projectCount} * 10;
    (async () => {
      cpSync(${JSON.stringify(seeded)}, dataDir, { recursive: true });
      const startParams = startParamsFor(dataDir);
      const db = await PGlite.create({ dataDir, ...(startParams ? { startParams } : {}) });
      const projects = (await db.query('SELECT id FROM projects')).rows.map((r) => r.id);
      const tasks = (await db.query('SELECT id FROM tasks ORDER BY random() LIMIT 5000')).rows.map((r) => r.id);
      const pick = (a) => a[Math.floor(Math.random() * a.length)];
      const one = async () => {
        await db.query("SELECT * FROM agent_tokens WHERE token_hash = encode(sha256(('t' || $1::int)::bytea), 'hex') AND revoked_at IS NULL", [1 + Math.floor(Math.random() * tokens)]);
        await db.query('SELECT * FROM tasks WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20', [pick(projects)]);
        await db.query('SELECT * FROM tasks WHERE id = $1', [pick(tasks)]);
        const [row] = (await db.query("INSERT INTO tasks (project_id, title, status) VALUES ($1, 'footprint', 'todo') RETURNING id", [pick(projects)])).rows;
        await db.query('DELETE FROM tasks WHERE id = $1', [row.id]);
      };
      for (let i = 0; i < 1500; i++) await one();
      await new Promise((r) => setTimeout(r, 3000));
      const c = cpu(); const t = Date.now(); const n = 2000;
      for (let i = 0; i < n; i++) await one();
      const sharedBuffers = (await db.query('SHOW shared_buffers')).rows[0].shared_buffers;
      const result = { sharedBuffers, cpuUsPerIteration: Math.round((cpu() - c) / n), wallUsPerIteration: Math.round(((Date.now() - t) * 1000) / n), rssMb: Math.round(kb('VmRSS') / 1024) };
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
      console.log(JSON.stringify(result));
    })();`;
  return runScript(script, [scratch, settings], settings === 'service' ? v8Flags() : []);
}

(async () => {
  if (!existsSync(main)) {
    console.error('Build first: npm run build');
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), 'ag-footprint-'));
  try {
    const firstStart = await startOnce(join(dir, 'service'));
    const laterStart = await startOnce(join(dir, 'service'));
    const pgliteNewFolder = await pgliteAlone(join(dir, 'bare'), 'default');
    const pgliteExistingFolder = await pgliteAlone(join(dir, 'bare'), 'default');
    const pgliteExistingFolderAsService = await pgliteAlone(join(dir, 'bare'), 'service');
    const queryMix = {};
    for (const [name, projects] of [['small', 20], ['large', 2000]].filter(([n]) => FOLDERS.includes(n))) {
      const seeded = join(dir, `seeded-${name}`);
      cpSync(join(dir, 'service', 'pg'), seeded, { recursive: true });
      await seedQueriesFolder(seeded, projects);
      const runs = { default: [], service: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const settings of round % 2 ? ['service', 'default'] : ['default', 'service']) {
          runs[settings].push(await queries(seeded, projects, join(dir, `q-${name}-${round}-${settings}`), settings));
        }
      }
      const summary = (rs) => ({ cpuUsPerIteration: median(rs.map((r) => r.cpuUsPerIteration)), wallUsPerIteration: median(rs.map((r) => r.wallUsPerIteration)), rssMb: median(rs.map((r) => r.rssMb)), rounds: rs });
      const mix = { default: summary(runs.default), service: summary(runs.service) };
      mix.cpuRatio = Math.round((mix.service.cpuUsPerIteration / mix.default.cpuUsPerIteration) * 100) / 100;
      queryMix[name] = mix;
      rmSync(seeded, { recursive: true, force: true });
    }
    console.log(
      JSON.stringify(
        { node: process.version, sharedBuffersMb: SHARED_BUFFERS_MB ?? 'default', load: require('node:os').loadavg().map((n) => Number(n.toFixed(2))), firstStart, laterStart, pgliteNewFolder, pgliteExistingFolder, pgliteExistingFolderAsService, queryMix },
        null,
        2,
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
