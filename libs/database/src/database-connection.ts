import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { EmbeddedPostgres } from './embedded-postgres';

/**
 * Where the database is: the `DATABASE_URL` PostgreSQL, or the embedded one started for this
 * process. On shutdown it closes the pool first, then the embedded database, so nothing is lost.
 */
@Injectable()
export class DatabaseConnection implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseConnection.name);

  constructor(
    readonly url: string,
    readonly embedded: EmbeddedPostgres | undefined,
    private readonly moduleRef: ModuleRef,
  ) {}

  get kind(): 'embedded' | 'postgres' {
    return this.embedded ? 'embedded' : 'postgres';
  }

  async onApplicationShutdown(): Promise<void> {
    const dataSource = this.moduleRef.get(DataSource, { strict: false });
    if (dataSource?.isInitialized) await dataSource.destroy();
    if (this.embedded) {
      await this.embedded.stop();
      this.logger.log('embedded database stopped');
    }
  }
}
