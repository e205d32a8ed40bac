import { chmodSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';

/**
 * Backups of the embedded database while the service runs. Only the process holding the data
 * folder's lock may read it, so the command line asks that process: the service listens on a
 * Unix socket beside the lock (`DATA_DIR/pg.backup.sock`, mode 0600, so only the same user can
 * ask), and answers `backup` with a consistent copy of the folder (docs/operations.md).
 *
 * Protocol: the client sends `backup\n`; the server answers `ok <bytes>\n` then the gzip tarball,
 * or `error <message>\n`, and closes.
 */
export function backupSocketPath(pgDataDir: string): string {
  return join(dirname(pgDataDir), 'pg.backup.sock');
}

export class EmbeddedBackupServer {
  private constructor(
    private readonly server: Server,
    readonly path: string,
  ) {}

  /** Listens on `path`; a socket file already there is stale (the caller holds the folder's lock). */
  static async listen(path: string, makeBackup: () => Promise<Uint8Array>): Promise<EmbeddedBackupServer> {
    rmSync(path, { force: true });
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', (chunk) => {
        if (chunk.toString('utf8').trim() !== 'backup') {
          socket.end('error unknown command\n');
          return;
        }
        makeBackup().then(
          (bytes) => {
            socket.write(`ok ${bytes.length}\n`);
            socket.end(bytes);
          },
          (error: unknown) => socket.end(`error ${error instanceof Error ? error.message : String(error)}\n`),
        );
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
    server.unref();
    return new EmbeddedBackupServer(server, path);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.path, { force: true });
  }
}

/** The command line's side: asks the service listening on `path` for a backup. */
export function requestBackup(path: string, timeoutMs = 300_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('the service did not answer the backup request in time')));
    socket.on('connect', () => socket.write('backup\n'));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const newline = all.indexOf(10);
      const header = newline < 0 ? all.toString('utf8') : all.subarray(0, newline).toString('utf8');
      const ok = /^ok (\d+)$/.exec(header);
      if (!ok) return reject(new Error(header.startsWith('error ') ? header.slice(6) : 'the service sent no backup'));
      const body = all.subarray(newline + 1);
      if (body.length !== Number(ok[1])) return reject(new Error(`the backup was cut short (${body.length} of ${ok[1]} bytes)`));
      resolve(body);
    });
  });
}
