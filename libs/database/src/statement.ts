import type { Pool, PoolClient } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { isDatabaseUnavailable, translateDatabaseError } from './database-unavailable';
import { queryReturning } from './query-returning';
import type { ReadPipeline } from './read-pipeline';
import { type BoundStatement, queryAtomically, queryStatement, type Statement } from './statement-query';

// The types are defined beside the queries that run them (`statement-query.ts`); statements are declared here.
export type { BoundStatement, Statement };

const names = new Set<string>();

/** Declares a statement; each name is given to one text only. */
export function statement(name: string, text: string): Statement {
  if (names.has(name)) throw new Error(`statement ${name} is declared twice`);
  names.add(name);
  return Object.freeze({ name, text });
}

/** What `readStatement` needs of the data source (the gateway's implements it). */
export interface StatementReader {
  readStatement<T>(statement: Statement, parameters: readonly unknown[]): Promise<T[]>;
}

/**
 * The rows of one read statement, outside any transaction (inside one, use its EntityManager).
 * Through the gateway's data source: straight on a pooled connection, without a TypeORM query
 * runner; anything else (a plain TypeORM data source) runs it with `query()`.
 */
export function readStatement<T>(dataSource: DataSource, statement: Statement, parameters: readonly unknown[]): Promise<T[]> {
  const reader = dataSource as DataSource & Partial<StatementReader>;
  return reader.readStatement ? reader.readStatement<T>(statement, parameters) : dataSource.query(statement.text, [...parameters]);
}

/** What a query runner of the gateway's data source adds when it prepares statements: one on the runner's own connection. */
export interface StatementRunner {
  runStatement<T>(statement: Statement, parameters: readonly unknown[]): Promise<T[]>;
}

/**
 * The rows of one statement run through `em` (reads and writes alike; an `UPDATE` or `DELETE`
 * answers its `RETURNING` rows). Inside a transaction it runs on the transaction's connection,
 * prepared by name on PostgreSQL through the gateway's data source; through the data source's
 * own manager (no transaction) it is `readStatement` on a pooled connection. Anywhere else it
 * runs as `em.query` would.
 */
export async function statementIn<T>(em: EntityManager, statement: Statement, parameters: readonly unknown[]): Promise<T[]> {
  const runner = em.queryRunner as (EntityManager['queryRunner'] & Partial<StatementRunner>) | undefined;
  if (!runner) return readStatement<T>(em.connection, statement, parameters);
  if (runner.runStatement) return runner.runStatement<T>(statement, parameters);
  return queryReturning<T>(em, statement.text, [...parameters]);
}

/** What the data source lends `runStatement`. */
export interface StatementContext {
  pool: Pool;
  /** Where `runStatement` sends its statements when set (PostgreSQL with prepared statements); else the pool. */
  pipeline?: ReadPipeline;
  /**
   * With a pipeline: how long a statement it sends to the pool instead (every connection of the
   * pipeline full or stalled) may go unanswered before it fails as "unavailable".
   */
  statementTimeoutMs?: number;
  prepared: boolean;
  slowMs: number | undefined;
  onError(error: unknown, text: string): void;
  onSlow(ms: number, text: string): void;
}

/** What the data source adds when it runs several statements as one atomic write. */
export interface AtomicWriter {
  runAtomically(steps: readonly BoundStatement[]): Promise<Record<string, unknown>[][]>;
}

/**
 * Runs `steps` in order, all applied or none, and answers each one's rows. Through the
 * gateway's data source on PostgreSQL: in one round trip (`queryAtomically`); anywhere else (the
 * embedded database, a plain TypeORM data source): in a transaction, a statement at a time.
 * For writes whose steps need nothing of each other's rows (ids made by the caller).
 */
export function runAtomically(dataSource: DataSource, steps: readonly BoundStatement[]): Promise<Record<string, unknown>[][]> {
  const writer = dataSource as DataSource & Partial<AtomicWriter>;
  return writer.runAtomically ? writer.runAtomically(steps) : stepByStep(dataSource, steps);
}

/** `steps` in a transaction, one statement after the other. */
export function stepByStep(dataSource: DataSource, steps: readonly BoundStatement[]): Promise<Record<string, unknown>[][]> {
  return dataSource.transaction(async (em) => {
    const results: Record<string, unknown>[][] = [];
    for (const step of steps) results.push(await statementIn<Record<string, unknown>>(em, step.statement, step.parameters));
    return results;
  });
}

/**
 * Runs `statement` on `context`'s read pipeline when it has one and one of its connections takes
 * it, else on a connection of its pool (see `onPooledConnection`; bounded by the statement
 * timeout when it came from the pipeline); failures are logged and translated alike.
 */
export function runStatement<T>(context: StatementContext, statement: Statement, parameters: readonly unknown[]): Promise<T[]> {
  const pipeline = context.pipeline;
  if (pipeline) {
    const piped = pipeline.query<T>(statement, parameters);
    if (piped) return observed(context, statement.text, () => piped);
    const timeoutMs = context.statementTimeoutMs;
    return onPooledConnection(context, statement.text, (client) => withTimeout(queryStatement<T>(client, statement, parameters, context.prepared), timeoutMs));
  }
  return onPooledConnection(context, statement.text, (client) => queryStatement<T>(client, statement, parameters, context.prepared));
}

/**
 * `answer`, or a statement timeout after `timeoutMs` (which `onPooledConnection` takes as a
 * broken connection and drops: the statement may still be running on it). The timeout is decided
 * after the event loop's reads of that turn (`setImmediate`): timers run before them, and after the
 * process itself was busy past the deadline the answer may be waiting in the socket, unread.
 */
function withTimeout<T>(answer: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return answer;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const fail = () => reject(new Error(`statement timeout: no answer from the database within ${timeoutMs} ms`));
    timer = setTimeout(() => setImmediate(fail), timeoutMs);
  });
  // The connection is ended when the timeout wins: the answer's failure then is nobody's.
  answer.catch(() => undefined);
  return Promise.race([answer, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `steps` on a connection of `context`'s pool in one round trip, all applied or none (see `onPooledConnection`). */
export function runStepsAtomically(context: StatementContext, steps: readonly BoundStatement[]): Promise<Record<string, unknown>[][]> {
  const text = steps.map((step) => step.statement.text).join(';\n');
  return onPooledConnection(context, text, (client) => queryAtomically(client, steps, context.prepared));
}

/**
 * Runs `query` on a connection of `pool` and gives the connection back (dropped when the
 * failure says the database is gone), observed as `observed` does.
 */
async function onPooledConnection<T>(context: StatementContext, text: string, query: (client: PoolClient) => Promise<T>): Promise<T> {
  let client: PoolClient;
  try {
    client = await context.pool.connect();
  } catch (error) {
    throw translateDatabaseError(error);
  }
  const watched = watchForBreaks(client);
  let failure: Error | undefined;
  try {
    return await observed(context, text, () => query(client), (error) => (failure = error));
  } finally {
    client.release(watched[BROKEN] ?? failure);
  }
}

/**
 * `query`'s result, timed: a slow one is reported as the data source reports them, a failure is
 * logged as it logs them and turned into `DatabaseUnavailableError` when the database cannot be
 * reached (`unavailable` hears of it first).
 */
async function observed<T>(context: StatementContext, text: string, query: () => Promise<T>, unavailable?: (error: Error) => void): Promise<T> {
  const started = Date.now();
  try {
    const result = await query();
    const took = Date.now() - started;
    if (context.slowMs !== undefined && took > context.slowMs) context.onSlow(took, text);
    return result;
  } catch (error) {
    if (unavailable && isDatabaseUnavailable(error)) unavailable(error as Error);
    context.onError(error, text);
    throw translateDatabaseError(error);
  }
}

const BROKEN = Symbol('broken');
type WatchedClient = PoolClient & { [BROKEN]?: Error };
const watchedClients = new WeakSet<PoolClient>();

/**
 * A lent connection has no listener of the pool's: one that breaks while lent (the database
 * going away mid-query) would otherwise emit an unhandled 'error' and end the process. Each
 * connection gets one listener for its life, which notes the break on the connection, instead of
 * one added and removed per statement; the note is cleared when the connection is lent.
 */
function watchForBreaks(client: PoolClient): WatchedClient {
  const watched = client as WatchedClient;
  if (!watchedClients.has(client)) {
    watchedClients.add(client);
    client.on('error', (error: Error) => (watched[BROKEN] = error));
  }
  watched[BROKEN] = undefined;
  return watched;
}
