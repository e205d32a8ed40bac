import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { DataFolderLock } from './data-folder-lock';

export interface EmbeddedPostgresOptions {
  /** Folder holding the data files; omitted → in memory (tests). */
  dataDir?: string;
  /** A tarball from `dumpDataDir()` to start from (tests load a migrated snapshot). */
  snapshot?: Blob;
  maxConnections: number;
}

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
      mkdirSync(options.dataDir, { recursive: true });
      if (!options.snapshot) EmbeddedPostgres.initialiseApart(options.dataDir);
    }
    const db = await PGlite.create({
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.snapshot ? { loadDataDir: options.snapshot } : {}),
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
      options.dataDir ? `embedded database ready (data in ${options.dataDir})` : 'embedded database ready (in memory)',
    );
    return new EmbeddedPostgres(db, server, url, lock, options.dataDir);
  }

  /**
   * A new data folder is initialised (PostgreSQL's initdb) in a short-lived child process. initdb
   * is what costs memory in PGlite (about 850 MB at its peak, against about 290 MB to open an
   * existing folder), and WebAssembly memory never shrinks: done in this process it would stay
   * ~600 MB larger for its whole life. The child's memory goes back when it exits.
   */
  private static initialiseApart(dataDir: string): void {
    if (existsSync(join(dataDir, 'PG_VERSION'))) return;
    const started = Date.now();
    const script = `require(${JSON.stringify(require.resolve('@electric-sql/pglite'))}).PGlite.create({ dataDir: process.argv[1] })
      .then((db) => db.close()).catch((e) => { console.error(e); process.exit(1); })`;
    execFileSync(process.execPath, ['-e', script, dataDir], { stdio: ['ignore', 'ignore', 'inherit'] });
    EmbeddedPostgres.logger.log(`new data folder initialised in ${((Date.now() - started) / 1000).toFixed(1)} s`);
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
      mkdirSync(dataDir, { recursive: true });
      const db = await PGlite.create({ dataDir, loadDataDir: new Blob([backup]) });
      await db.exec('CHECKPOINT');
      await db.close();
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
