#!/usr/bin/env node
/**
 * The embedded database's memory footprint (docs/performance.md, "Embedded footprint"):
 *
 *   node scripts/footprint.js            # after `npm run build`
 *
 * Starts the built service (dist/) with the embedded database twice on one new data folder:
 * the first start (empty folder: PGlite runs initdb, then the migrations) and a second start
 * (existing folder). For each: seconds until /health/ready, the peak resident memory of the
 * process (VmHWM) and its resident memory after 10 s idle (VmRSS). Then, to see where the memory
 * goes, PGlite alone in a bare Node process: creating a new folder and opening an existing one.
 * Prints one JSON document.
 */
const { spawn } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { freePort } = require('./lib/postgres');

const root = join(__dirname, '..');
const main = join(root, 'dist/apps/gateway/src/main.js');

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startOnce(dataDir) {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH, NODE_ENV: 'development', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let readySeconds;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  readySeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const atReady = memory(child.pid);
  await sleep(10_000);
  const idle = memory(child.pid);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { readySeconds: Math.round(readySeconds * 100) / 100, peakMb: idle.peakMb, rssAtReadyMb: atReady.rssMb, idleRssMb: idle.rssMb };
}

/** PGlite alone, in a bare Node process: what opening a folder costs without the service. */
function pgliteAlone(dataDir) {
  const script = `
    const { PGlite } = require('@electric-sql/pglite');
    (async () => {
      const t = Date.now();
      const db = await PGlite.create({ dataDir: ${JSON.stringify(dataDir)} });
      await db.query('SELECT 1');
      const ms = Date.now() - t;
      const s = require('fs').readFileSync('/proc/self/status', 'utf8');
      const kb = (n) => Number(new RegExp('^' + n + ':\\\\s+(\\\\d+) kB', 'm').exec(s)[1]);
      await db.close();
      console.log(JSON.stringify({ seconds: ms / 1000, peakMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024) }));
    })();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`PGlite alone exited with ${code}`))));
  });
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
    const pgliteNewFolder = await pgliteAlone(join(dir, 'bare'));
    const pgliteExistingFolder = await pgliteAlone(join(dir, 'bare'));
    console.log(JSON.stringify({ node: process.version, firstStart, laterStart, pgliteNewFolder, pgliteExistingFolder }, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
