import { execFileSync } from 'node:child_process';
import { type Dirent, existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Logger } from '@nestjs/common';
import { makePrivate, secureDataFolderParent } from './data-folder-modes';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { DataFolderLock } from './data-folder-lock';
import { copyTemplate, EMBEDDED_TEMPLATE_DIR } from './embedded-template';

export interface EmbeddedPostgresOptions {
  /** Folder holding the data files; omitted → in memory (tests). */
  dataDir?: string;
  /** A tarball from `dumpDataDir()` to start from (tests load a migrated snapshot). */
  snapshot?: Blob;
  maxConnections: number;
  /** PostgreSQL's `shared_buffers` in MB; unset: sized to the data (`automaticSharedBuffersMb`). */
  sharedBuffersMb?: number;
  /** The pre-initialised folder a new data folder is copied from (default: the build's, `embedded-template.ts`). */
  templateDir?: string;
}

/** The smallest and largest `shared_buffers` the embedded database sizes itself to, in MB. */
export const EMBEDDED_SHARED_BUFFERS_RANGE_MB = { min: 16, max: 128 } as const;

/**
 * PostgreSQL's settings for the embedded database, on top of PGlite's own. `shared_buffers`
 * (PostgreSQL's default 128MB) is memory the WebAssembly instance touches at start and never
 * gives back, so it is sized to the data (`automaticSharedBuffersMb`) unless configured.
 */
export function embeddedStartParams(sharedBuffersMb: number = EMBEDDED_SHARED_BUFFERS_RANGE_MB.min): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`];
}

/**
 * `shared_buffers` for a data folder when `EMBEDDED_SHARED_BUFFERS_MB` is not set: the size of
 * the service's database in it (the largest folder under `base/`: its tables and indexes; the
 * templates beside it are never queried), between 16 and 128 MB. A new or small folder gets
 * 16 MB: a gateway of a few teams fits, and the service idles near 225 MB. A large one gets
 * more, so a query does not read through PGlite's file system on every miss: on a database of
 * 20,000 tokens and 100,000 tasks (about 60 MB), 16 MB made the query mix 19% slower than
 * PGlite's default of 128 MB, and 64 MB 6% (docs/performance.md, "Embedded footprint"). Read at
 * each start, so the buffers grow with the data from one start to the next.
 */
export function automaticSharedBuffersMb(dataDir: string | undefined): number {
  const { min, max } = EMBEDDED_SHARED_BUFFERS_RANGE_MB;
  if (!dataDir) return min;
  const base = join(dataDir, 'base');
  const largest = Math.max(0, ...subfolders(base).map((name) => folderBytes(join(base, name))));
  return Math.min(max, Math.max(min, Math.ceil(largest / 2 ** 20)));
}

/** The entries of `dir`, or none when it does not exist yet. */
function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function subfolders(dir: string): string[] {
  return entriesOf(dir)
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/** The bytes of the files under `dir` (0 when it does not exist yet). */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of entriesOf(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

/**
 * V8 compiles PGlite's WebAssembly (9 MB) twice: at once with its baseline compiler (Liftoff),
 * then its hot functions again with the optimising one (TurboFan), and keeps both. Liftoff's code
 * alone saves about 60 MB of resident memory and half the CPU of opening the database; queries
 * stay as fast (docs/performance.md, "Embedded footprint"). Set before the module is compiled,
 * and only in a process that opens the embedded database.
 */
export const EMBEDDED_V8_FLAGS = ['--liftoff-only'];

/**
 * The embedded PostgreSQL: PGlite behind its wire-protocol socket server on 127.0.0.1, so the
 * service talks to it through `pg` exactly as it talks to a real PostgreSQL. PGlite runs one
 * query at a time in one shared session: queries inside a transaction must use that
 * transaction's EntityManager, and nothing may rely on session state (SET, temp tables,
 * advisory locks, named prepared statements).
 */
export class EmbeddedPostgres {
  private static readonly logger = new Logger('EmbeddedPostgres');

  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
    private readonly lock: DataFolderLock | undefined,
    /** The data folder (`DATA_DIR/pg`); undefined in memory. */
    readonly dataDir: string | undefined,
  ) {}

  /**
   * Opens the database. With a data folder, first takes its lock (`DataFolderLock`): a folder
   * another live process holds is refused with a `DataFolderLockedError` before anything opens it.
   */
  static async start(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
    if (options.dataDir) {
      const { warning } = secureDataFolderParent(options.dataDir);
      if (warning) EmbeddedPostgres.logger.warn(warning);
    }
    const lock = options.dataDir ? DataFolderLock.acquire(options.dataDir) : undefined;
    try {
      return await EmbeddedPostgres.open(options, lock);
    } catch (error) {
      lock?.release();
      throw error;
    }
  }

  private static async open(options: EmbeddedPostgresOptions, lock: DataFolderLock | undefined): Promise<EmbeddedPostgres> {
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
      if (!options.snapshot) EmbeddedPostgres.initialise(options.dataDir, options.templateDir ?? EMBEDDED_TEMPLATE_DIR);
      makePrivate(options.dataDir);
    }
    setFlagsFromString(EMBEDDED_V8_FLAGS.join(' '));
    const sharedBuffersMb = options.sharedBuffersMb ?? automaticSharedBuffersMb(options.dataDir);
    const db = await PGlite.create({
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.snapshot ? { loadDataDir: options.snapshot } : {}),
      startParams: embeddedStartParams(sharedBuffersMb),
    });
    const server = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: 0,
      maxConnections: options.maxConnections,
    });
    await server.start();
    const conn = server.getServerConn();
    const url = `postgres://postgres:postgres@${conn}/postgres?sslmode=disable`;
    EmbeddedPostgres.logger.log(
      options.dataDir
        ? `embedded database ready (data in ${options.dataDir}, ${sharedBuffersMb} MB shared buffers)`
        : 'embedded database ready (in memory)',
    );
    return new EmbeddedPostgres(db, server, url, lock, options.dataDir);
  }

  /**
   * A new data folder is a copy of the build's pre-initialised template (`embedded-template.ts`),
   * or, without one (running from the sources), initialised by PostgreSQL's initdb in a
   * short-lived child process. initdb is what costs memory in PGlite (about 850 MB at its peak,
   * against under 200 MB to open an existing folder), and WebAssembly memory never shrinks: done
   * in this process it would stay that much larger for its whole life. The child's memory goes
   * back when it exits.
   */
  private static initialise(dataDir: string, templateDir: string): void {
    if (existsSync(join(dataDir, 'PG_VERSION'))) return;
    const started = Date.now();
    if (copyTemplate(templateDir, dataDir)) {
      EmbeddedPostgres.logger.log(`new data folder copied from the pre-initialised template in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    }
    const script = `require(${JSON.stringify(require.resolve('@electric-sql/pglite'))}).PGlite.create({ dataDir: process.argv[1] })
      .then((db) => db.close()).catch((e) => { console.error(e); process.exit(1); })`;
    execFileSync(process.execPath, ['-e', script, dataDir], { stdio: ['ignore', 'ignore', 'inherit'] });
    EmbeddedPostgres.logger.log(`new data folder initialised in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  /**
   * Sets the data folder and everything in it private again (0700 / 0600): PGlite writes its
   * relation-cache files (`pg_internal.init`) 0644 whatever the umask, once it has started and
   * after the migrations. Those files sit in the 0700 folder, which no other user can enter.
   */
  makePrivate(): void {
    if (this.dataDir) makePrivate(this.dataDir);
  }

  /** A tarball of the data directory, for tests that start many databases from one migrated state. */
  dump(): Promise<Blob> {
    return this.db.dumpDataDir('none') as Promise<Blob>;
  }

  /**
   * A consistent copy of the data folder, as a gzip tarball (PGlite's `dumpDataDir`) after a
   * checkpoint, so every committed write is in the files copied. The caller makes sure no
   * transaction is open meanwhile (the service holds its one pooled connection while it runs).
   */
  async consistentCopy(): Promise<Uint8Array> {
    await this.db.exec('CHECKPOINT');
    const blob = (await this.db.dumpDataDir('gzip')) as Blob;
    return new Uint8Array(await blob.arrayBuffer());
  }

  /**
   * Replaces the data folder with a backup made by `consistentCopy` (the command line's
   * `restore`). Checks the backup opens as a database, takes the folder's lock (the service must
   * be stopped), moves the current folder aside (never deleted) and
   * unpacks the backup in its place. Returns where the previous folder went, if there was one.
   */
  static async restore(dataDir: string, backup: Uint8Array): Promise<string | undefined> {
    const check = await PGlite.create({ loadDataDir: new Blob([backup]) });
    try {
      await check.query('SELECT count(*) FROM migrations');
    } finally {
      await check.close();
    }
    const lock = DataFolderLock.acquire(dataDir);
    try {
      let movedTo: string | undefined;
      if (existsSync(dataDir)) {
        movedTo = `${dataDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
        renameSync(dataDir, movedTo);
      }
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const db = await PGlite.create({ dataDir, loadDataDir: new Blob([backup]) });
      await db.exec('CHECKPOINT');
      await db.close();
      makePrivate(dataDir);
      return movedTo;
    } finally {
      lock.release();
    }
  }

  async stop(): Promise<void> {
    try {
      await this.server.stop();
      await this.db.close();
    } finally {
      this.lock?.release();
    }
  }
}
