import type { ClientConfig, Pool, PoolClient } from 'pg';
import type { DataSourceOptions, QueryRunner, ReplicationMode } from 'typeorm';
import { DataSource } from 'typeorm';
import { translateDatabaseError } from './database-unavailable';
import { ReadPipeline, type ReadPipelineBounds } from './read-pipeline';
import { queryStatement } from './statement-query';
import {
  type AtomicWriter,
  type BoundStatement,
  runStatement,
  runStepsAtomically,
  type Statement,
  type StatementContext,
  type StatementReader,
  type StatementRunner,
  stepByStep,
} from './statement';

/**
 * The data source's options, plus whether named statements are prepared on the server and
 * whether an atomic write's statements go in one round trip (PostgreSQL; the embedded
 * database's socket server interleaves connections' messages, so there they run in a
 * transaction).
 */
export type GatewayDataSourceOptions = DataSourceOptions & {
  preparedStatements?: boolean;
  oneTripWrites?: boolean;
  /** The read pipeline's statement timeout, in ms (`DATABASE_STATEMENT_TIMEOUT_MS`). */
  statementTimeoutMs?: number;
  /** Statements in flight per pipeline connection beyond which they go to the pool (`DATABASE_PIPELINE_MAX_QUEUED`). */
  pipelineMaxQueued?: number;
};

/** The read pipeline's bounds when the options name none. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
export const DEFAULT_PIPELINE_MAX_QUEUED = 100;

/**
 * The connections the request path's statements are pipelined on (`ReadPipeline`), besides the
 * pool's. Two keep a second PostgreSQL backend at work while one is busy; each serves tens of
 * thousands of these statements a second.
 */
export const READ_PIPELINE_CONNECTIONS = 2;

/**
 * The variable that enables `setBeforeCommitHook` (tests only). Without it the hook is never
 * consulted: a production process cannot be made to pause.
 */
export const BEFORE_COMMIT_HOOK_ENV = 'AG_TEST_BEFORE_COMMIT_HOOK';

/**
 * Called, when enabled, right before a transaction's `COMMIT` is sent, with the statements the
 * transaction ran; the commit waits for the returned promise. Tests use it to stop the database
 * at that moment and check that a transaction is applied whole or not at all.
 */
export type BeforeCommitHook = (statements: readonly string[]) => Promise<void> | void;

let beforeCommitHook: BeforeCommitHook | undefined;

/** Tests: installs (or with `undefined` removes) the before-commit hook. Refused unless `AG_TEST_BEFORE_COMMIT_HOOK=1`. */
export function setBeforeCommitHook(hook: BeforeCommitHook | undefined): void {
  if (hook && process.env[BEFORE_COMMIT_HOOK_ENV] !== '1') {
    throw new Error(`the before-commit hook needs ${BEFORE_COMMIT_HOOK_ENV}=1 (tests only)`);
  }
  beforeCommitHook = hook;
}

/**
 * The application's data source: TypeORM's, with every query runner it creates (repositories,
 * query builders, `query()`, transactions all use one) turning connection failures into
 * `DatabaseUnavailableError` (`database-unavailable.ts`), so every transport answers them as
 * "unavailable, retry later" and no service has to know about sockets. The request path's hot
 * reads (`readStatement`) skip the query runner and, on PostgreSQL, are prepared by name.
 */
export class GatewayDataSource extends DataSource implements StatementReader, AtomicWriter {
  private readonly hookEnabled: boolean;
  private readonly preparedStatements: boolean;
  private readonly oneTripWrites: boolean;
  private readonly pipelineBounds: ReadPipelineBounds;
  private statements: StatementContext | undefined;

  constructor(options: GatewayDataSourceOptions) {
    super(options);
    this.hookEnabled = process.env[BEFORE_COMMIT_HOOK_ENV] === '1';
    this.preparedStatements = options.preparedStatements ?? false;
    this.oneTripWrites = options.oneTripWrites ?? false;
    this.pipelineBounds = {
      statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      maxQueued: options.pipelineMaxQueued ?? DEFAULT_PIPELINE_MAX_QUEUED,
    };
  }

  readStatement<T>(statement: Statement, parameters: readonly unknown[]): Promise<T[]> {
    return runStatement<T>(this.statementContext(), statement, parameters);
  }

  /**
   * `steps` all applied or none, each one's rows in order: on PostgreSQL in one round trip on a
   * pooled connection (one implicit transaction, `queryAtomically`), else in a transaction.
   */
  runAtomically(steps: readonly BoundStatement[]): Promise<Record<string, unknown>[][]> {
    return this.oneTripWrites ? runStepsAtomically(this.statementContext(), steps) : stepByStep(this, steps);
  }

  override async destroy(): Promise<void> {
    const pipeline = this.statements?.pipeline;
    this.statements = undefined;
    await pipeline?.close();
    await super.destroy();
  }

  private statementContext(): StatementContext {
    const pool = (this.driver as unknown as { master: Pool & { options: ClientConfig } }).master;
    const pipelined = this.preparedStatements && this.isInitialized;
    return (this.statements ??= {
      pool,
      // Prepared statements mean a direct connection to PostgreSQL (not a pooler that cannot keep
      // them, and not the embedded database): there the request path's statements are pipelined.
      // (None once the data source is destroyed: its statements then fail as the ended pool's do.)
      pipeline: pipelined ? new ReadPipeline(pool.options, READ_PIPELINE_CONNECTIONS, this.pipelineBounds) : undefined,
      statementTimeoutMs: pipelined ? this.pipelineBounds.statementTimeoutMs : undefined,
      prepared: this.preparedStatements,
      slowMs: this.options.maxQueryExecutionTime,
      onError: (error, text) => this.logger.logQueryError(error as Error, text),
      onSlow: (ms, text) => this.logger.logQuerySlow(ms, text),
    });
  }

  override createQueryRunner(mode?: ReplicationMode): QueryRunner {
    const runner = super.createQueryRunner(mode);
    const query = runner.query.bind(runner) as (sql: string, parameters?: unknown, structured?: boolean) => Promise<unknown>;
    const connect = runner.connect.bind(runner);
    const statements: string[] = [];
    const hookEnabled = this.hookEnabled;
    runner.connect = async () => {
      try {
        return await connect();
      } catch (error) {
        throw translateDatabaseError(error);
      }
    };
    runner.query = (async (sql: string, parameters?: unknown, structured?: boolean) => {
      if (hookEnabled) {
        if (sql === 'START TRANSACTION') statements.length = 0;
        else if (sql === 'COMMIT' && beforeCommitHook) await beforeCommitHook([...statements]);
        else if (runner.isTransactionActive) statements.push(sql);
      }
      try {
        return await query(sql, parameters, structured);
      } catch (error) {
        throw translateDatabaseError(error);
      }
    }) as QueryRunner['query'];
    // Unprepared, a statement runs as any other query of the runner (`statementIn`).
    if (!this.preparedStatements) return runner;
    const logger = this.logger;
    (runner as QueryRunner & StatementRunner).runStatement = async <T>(statement: Statement, parameters: readonly unknown[]): Promise<T[]> => {
      if (hookEnabled && runner.isTransactionActive) statements.push(statement.text);
      const client = (await runner.connect()) as PoolClient;
      try {
        return await queryStatement<T>(client, statement, parameters, true);
      } catch (error) {
        logger.logQueryError(error as Error, statement.text, [], runner);
        throw translateDatabaseError(error);
      }
    };
    return runner;
  }
}
