import { DynamicModule, Global, Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@app/config';
import { DatabaseConnection } from './database-connection';
import { EmbeddedPostgres } from './embedded-postgres';
import { GatewayDataSource, type GatewayDataSourceOptions } from './gateway-data-source';
import { MIGRATIONS } from './migrations';
import { CleanupScheduler } from './periodic-cleanup';
import { QuietQueryLogger } from './quiet-query.logger';
import { runMigrations } from './run-migrations';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export interface DatabaseModuleOptions {
  /** Tests: start the embedded database in memory from a migrated snapshot instead of DATA_DIR. */
  embeddedSnapshot?: Blob;
  /** Run the checked-in migrations at start (default). The command line runs them itself to report them. */
  migrationsRun?: boolean;
}

@Global()
@Module({})
class DatabaseConnectionModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseConnectionModule,
      providers: [
        {
          provide: DatabaseConnection,
          inject: [AppConfig, ModuleRef],
          useFactory: async (config: AppConfig, moduleRef: ModuleRef) => {
            if (config.databaseUrl) return new DatabaseConnection(config.databaseUrl, undefined, moduleRef);
            const embedded = await EmbeddedPostgres.start({
              dataDir: options.embeddedSnapshot ? undefined : `${config.dataDir}/pg`,
              snapshot: options.embeddedSnapshot,
              maxConnections: config.databasePoolSize + 2,
              sharedBuffersMb: config.embeddedSharedBuffersMb,
            });
            return new DatabaseConnection(embedded.url, embedded, moduleRef);
          },
        },
        CleanupScheduler,
      ],
      exports: [DatabaseConnection, CleanupScheduler],
    };
  }
}

/**
 * TypeORM over `pg`, the same code path for the embedded database and a real PostgreSQL.
 * Checked-in migrations run at start (on PostgreSQL under an advisory lock, so instances
 * starting together migrate once); `synchronize` is never on.
 */
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions = {}): DynamicModule {
    const connection = DatabaseConnectionModule.forRoot(options);
    return {
      module: DatabaseModule,
      imports: [
        connection,
        TypeOrmModule.forRootAsync({
          imports: [connection],
          inject: [AppConfig, DatabaseConnection],
          useFactory: (config: AppConfig, db: DatabaseConnection) => ({
            type: 'postgres' as const,
            url: db.url,
            autoLoadEntities: true,
            synchronize: false,
            // Extensions are the migrations' business; the schema uses the built-in gen_random_uuid().
            installExtensions: false,
            migrations: MIGRATIONS,
            // Run by the data source factory below, under an advisory lock.
            migrationsRun: false,
            migrationsTransactionMode: 'each' as const,
            namingStrategy: new SnakeNamingStrategy(),
            logger: new QuietQueryLogger(),
            logging: ['error', 'warn', 'migration'] as const,
            maxQueryExecutionTime: 1000,
            // The embedded database serves one session, and its socket server interleaves the
            // protocol messages of concurrent connections (one connection's Bind can meet another's
            // Parse: wrong parameters, wrong rows). One pooled connection keeps each query whole.
            // A connection that cannot be made in five seconds fails the request as "unavailable"
            // (503) rather than holding it while the database is unreachable.
            extra: { max: db.embedded ? 1 : config.databasePoolSize, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 },
            // The embedded database serves every connection one session: a name prepared by one
            // connection would clash with the next connection's. On PostgreSQL, as configured.
            preparedStatements: !db.embedded && config.databasePreparedStatements,
            // An atomic write's statements in one round trip, with one sync (PostgreSQL only: see above).
            oneTripWrites: !db.embedded,
            // The read pipeline's bounds (PostgreSQL with prepared statements only).
            statementTimeoutMs: config.databaseStatementTimeoutMs,
            pipelineMaxQueued: config.databasePipelineMaxQueued,
          }),
          dataSourceFactory: async (dataSourceOptions) => {
            const dataSource = await new GatewayDataSource(dataSourceOptions as GatewayDataSourceOptions).initialize();
            if (options.migrationsRun ?? true) await runMigrations(dataSource);
            return dataSource;
          },
        }),
      ],
      exports: [connection],
    };
  }
}
