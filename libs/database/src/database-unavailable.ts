import { Logger } from '@nestjs/common';
import { UnavailableError } from '@app/common';

/** Seconds a caller is told to wait (`Retry-After`) while the database does not answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Socket-level failures reaching the server, as Node and `pg` report them. */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // SQLSTATE 57P01 admin_shutdown ("terminating connection due to administrator command"),
  // 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down, recovering).
  '57P01',
  '57P02',
  '57P03',
]);

/** SQLSTATE class 08: connection exceptions. */
const CONNECTION_EXCEPTION_CLASS = /^08[0-9A-Z]{3}$/;

/** What `pg` and its pool say when there is no server behind a connection (they carry no code). */
const CONNECTION_ERROR_MESSAGES = [
  /timeout exceeded when trying to connect/i,
  /connection terminated/i,
  /terminating connection due to administrator command/i,
  /is not queryable/i,
  /the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/i,
  /cannot use a pool after calling end/i,
  // A statement not answered within its bound: PostgreSQL's own cancel ("canceling statement due
  // to statement timeout", SQLSTATE 57014) or the read pipeline's (`read-pipeline.ts`).
  /statement timeout/i,
];

/**
 * The one place that decides whether an error means "the database is unreachable" rather than
 * "this query is wrong": connection refused or reset, a pool timeout, the server shutting down
 * or restarting (57P01/57P02/57P03), any SQLSTATE of class 08, a statement not answered within
its bound (the statement timeout of the request path's reads). Looks through TypeORM's
 * `QueryFailedError` to the driver's error, and into `AggregateError`s (a host name resolving
 * to several addresses).
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 3) return false;
  const e = error as { code?: unknown; message?: unknown; driverError?: unknown; errors?: unknown };
  if (e.driverError !== undefined && isDatabaseUnavailable(e.driverError, depth + 1)) return true;
  if (typeof e.code === 'string' && (CONNECTION_ERROR_CODES.has(e.code) || CONNECTION_EXCEPTION_CLASS.test(e.code))) return true;
  if (typeof e.message === 'string' && CONNECTION_ERROR_MESSAGES.some((re) => re.test(e.message as string))) return true;
  return Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1));
}

/** The domain error every transport answers as "unavailable, retry later" (503 + `Retry-After`). */
export class DatabaseUnavailableError extends UnavailableError {
  constructor(cause?: unknown) {
    super('database_unavailable', 'The service is temporarily unavailable: its database does not answer. Retry shortly.', DATABASE_RETRY_AFTER_SECONDS, {
      cause,
    });
    this.name = 'DatabaseUnavailableError';
  }
}

const logger = new Logger('Database');
let lastWarning = 0;
let suppressed = 0;

/**
 * `error` as a `DatabaseUnavailableError` when it means the database is unreachable, else
 * unchanged. Logged at most every five seconds (an outage under load fails every request),
 * by message and code only, never with the query's parameters.
 */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError || !isDatabaseUnavailable(error)) return error;
  const now = Date.now();
  if (now - lastWarning >= 5_000) {
    const driver = (error as { driverError?: unknown }).driverError ?? error;
    const { code, message } = driver as { code?: unknown; message?: unknown };
    logger.warn(
      `database unavailable: ${typeof message === 'string' ? message : 'unknown error'}${typeof code === 'string' ? ` (${code})` : ''}` +
        (suppressed ? `; ${suppressed} more since the last warning` : ''),
    );
    lastWarning = now;
    suppressed = 0;
  } else {
    suppressed++;
  }
  return new DatabaseUnavailableError(error);
}
