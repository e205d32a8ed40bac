import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the PostgreSQL server binaries are, preferring 15 (production's floor); undefined when absent. */
export function findPostgresBin(): string | undefined {
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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface PostgresServer {
  url(database: string): string;
  port: number;
  dir: string;
  bin: string;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function run(bin: string, args: string[]): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(cmd, argv, { stdio: 'pipe', encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

/**
 * A throwaway PostgreSQL cluster on 127.0.0.1 (trust auth, no fsync): under a second to start.
 * As root the server runs as the `postgres` user, as PostgreSQL requires.
 */
export async function startPostgres(bin: string): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ag-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  run(join(bin, 'pg_ctl'), [
    '-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', 'start', '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`,
  ]);
  return { port, dir, bin, url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}` };
}

export function stopPostgres(server: { dir: string; bin: string }): void {
  try {
    run(join(server.bin, 'pg_ctl'), ['-D', join(server.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
  } finally {
    rmSync(server.dir, { recursive: true, force: true });
  }
}
