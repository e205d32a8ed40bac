import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { backupSocketPath, EmbeddedBackupServer } from './embedded-backup';
import { EmbeddedPostgres } from './embedded-postgres';

/**
 * Where the database is: the `DATABASE_URL` PostgreSQL, or the embedded one started for this
 * process. With an embedded data folder it also answers backup requests of the command line
 * (`embedded-backup.ts`). On shutdown it closes the pool first, then the embedded database, so
 * nothing is lost.
 */
@Injectable()
export class DatabaseConnection implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseConnection.name);
  private backupServer: EmbeddedBackupServer | undefined;

  constructor(
    readonly url: string,
    readonly embedded: EmbeddedPostgres | undefined,
    private readonly moduleRef: ModuleRef,
  ) {}

  get kind(): 'embedded' | 'postgres' {
    return this.embedded ? 'embedded' : 'postgres';
  }

  async onApplicationBootstrap(): Promise<void> {
    const embedded = this.embedded;
    if (!embedded?.dataDir) return;
    // After the migrations: what the database wrote while starting is private too.
    embedded.makePrivate();
    this.backupServer = await EmbeddedBackupServer.listen(backupSocketPath(embedded.dataDir), () => this.backup(embedded));
  }

  /** Holds the pool's one connection (no transaction can be open meanwhile) and copies the folder. */
  private async backup(embedded: EmbeddedPostgres): Promise<Uint8Array> {
    const runner = this.moduleRef.get(DataSource, { strict: false }).createQueryRunner();
    await runner.connect();
    try {
      const copy = await embedded.consistentCopy();
      this.logger.log(`backup of the embedded database sent (${copy.length} bytes)`);
      return copy;
    } finally {
      await runner.release();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.backupServer?.close();
    const dataSource = this.moduleRef.get(DataSource, { strict: false });
    if (dataSource?.isInitialized) await dataSource.destroy();
    if (this.embedded) {
      await this.embedded.stop();
      this.logger.log('embedded database stopped');
    }
  }
}
