/**
 * Throwaway PostgreSQL clusters on 127.0.0.1 for the tests and the benchmark (trust auth, no
 * fsync: under a second to start). As root the server runs as the `postgres` user, as
 * PostgreSQL requires.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

/** Where the PostgreSQL server binaries are, preferring 15 (production's floor); undefined when absent. */
function findPostgresBin() {
  if (process.env.PG_BIN && existsSync(join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => (a === '15' ? -1 : b === '15' ? 1 : Number(b) - Number(a)));
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function run(bin, args) {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(cmd, argv, { stdio: 'pipe', encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

/** Starts a cluster; `settings` are extra `-c name=value` server settings. */
async function startPostgres(bin, settings = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ag-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = {
    listen_addresses: '127.0.0.1',
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: '300',
    ...settings,
  };
  const flags = Object.entries(options).map(([k, v]) => `-c ${k}=${v}`).join(' ');
  const startArgs = ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', 'start', '-o', `-p ${port} -k ${dir} ${flags}`];
  run(join(bin, 'pg_ctl'), startArgs);
  return { port, dir, bin, startArgs, url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}` };
}

/** Outage tests: stops the server at once (`pg_ctl stop -m immediate`, as a crash), keeping its data. */
function haltPostgres(server) {
  run(join(server.bin, 'pg_ctl'), ['-D', join(server.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
}

/** Starts a halted server again on the same port and data (it recovers from its WAL). */
function restartPostgres(server) {
  run(join(server.bin, 'pg_ctl'), server.startArgs);
}

function stopPostgres(server) {
  try {
    run(join(server.bin, 'pg_ctl'), ['-D', join(server.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
  } finally {
    rmSync(server.dir, { recursive: true, force: true });
  }
}

module.exports = { findPostgresBin, freePort, startPostgres, stopPostgres, haltPostgres, restartPostgres };
