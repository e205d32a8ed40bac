import { mkdirSync } from 'node:fs';
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
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
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
    return new EmbeddedPostgres(db, server, url, lock);
  }

  /** A tarball of the data directory, for tests that start many databases from one migrated state. */
  dump(): Promise<Blob> {
    return this.db.dumpDataDir('none') as Promise<Blob>;
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
