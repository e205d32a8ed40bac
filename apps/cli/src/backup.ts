import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AppConfig } from '@app/config';
import { backupSocketPath, DataFolderLockedError, EmbeddedPostgres, requestBackup } from '@app/database';

export interface BackupIo {
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

const POSTGRES_HINT =
  'DATABASE_URL is set: back PostgreSQL up with its own tools, pg_dump --format=custom and pg_restore (docs/operations.md, "Backup and restore").';

/**
 * `backup <file>`: a consistent copy of the embedded database (a gzip tarball of its data folder).
 * While the service runs it holds the folder, so the copy is asked of it over its backup socket;
 * otherwise the command opens the folder itself (taking its lock) and copies it.
 */
export async function backup(config: AppConfig, file: string, io: BackupIo): Promise<'ok' | 'usage' | 'failed'> {
  if (config.databaseUrl) {
    io.stderr.write(`${POSTGRES_HINT}\n`);
    return 'usage';
  }
  const dataDir = `${config.dataDir}/pg`;
  if (!existsSync(dataDir)) {
    io.stderr.write(`There is no embedded database in ${resolve(dataDir)} to back up.\n`);
    return 'failed';
  }
  let copy: Uint8Array;
  let how: string;
  try {
    const embedded = await EmbeddedPostgres.start({ dataDir, maxConnections: 1 });
    try {
      copy = await embedded.consistentCopy();
    } finally {
      await embedded.stop();
    }
    how = 'the service is not running; copied the folder directly';
  } catch (error) {
    if (!(error instanceof DataFolderLockedError)) throw error;
    try {
      copy = await requestBackup(backupSocketPath(dataDir));
    } catch (cause) {
      io.stderr.write(
        `The data folder is held by another process and its backup socket did not answer (${cause instanceof Error ? cause.message : String(cause)}).\n${error.message}\n`,
      );
      return 'failed';
    }
    how = 'made by the running service';
  }
  // Written beside the target, then renamed: a failed run never leaves half a backup under the name.
  const target = resolve(file);
  const partial = `${target}.partial-${process.pid}`;
  writeFileSync(partial, copy, { mode: 0o600 });
  renameSync(partial, target);
  io.stdout.write(`Backed up the embedded database to ${target} (${copy.length} bytes; ${how}).\n`);
  return 'ok';
}

/**
 * `restore <file>`: replaces the embedded database with a backup. The service must be stopped
 * (the folder's lock says so); the current folder is moved aside, never deleted. Migrations
 * newer than the backup run at the next start.
 */
export async function restore(config: AppConfig, file: string, io: BackupIo): Promise<'ok' | 'usage' | 'failed' | 'busy'> {
  if (config.databaseUrl) {
    io.stderr.write(`${POSTGRES_HINT}\n`);
    return 'usage';
  }
  const source = resolve(file);
  if (!existsSync(source)) {
    io.stderr.write(`No backup file at ${source}.\n`);
    return 'failed';
  }
  const dataDir = `${config.dataDir}/pg`;
  let movedTo: string | undefined;
  try {
    movedTo = await EmbeddedPostgres.restore(dataDir, new Uint8Array(readFileSync(source)));
  } catch (error) {
    if (error instanceof DataFolderLockedError) {
      io.stderr.write(`${error.message}\nStop the service before restoring: a restore replaces the folder it has open.\n`);
      return 'busy';
    }
    io.stderr.write(`${source} is not a backup of the embedded database (${error instanceof Error ? error.message : String(error)}); nothing was changed.\n`);
    return 'failed';
  }
  io.stdout.write(
    `Restored the embedded database in ${resolve(dataDir)} from ${source}.` +
      (movedTo ? ` The previous folder was moved to ${movedTo}; delete it once the restored service works.` : '') +
      '\n',
  );
  return 'ok';
}
