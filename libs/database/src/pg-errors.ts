/** PostgreSQL error codes the services react to. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';
export const PG_INVALID_TEXT_REPRESENTATION = '22P02';
export const PG_NOT_NULL_VIOLATION = '23502';
/** A lock not taken within `lock_timeout` (or `NOWAIT`). */
export const PG_LOCK_NOT_AVAILABLE = '55P03';

/** True when `error` is a driver error with the given SQLSTATE (optionally on one constraint). */
export function isPgError(error: unknown, code: string, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const actual = e?.driverError ?? e;
  return actual?.code === code && (constraint === undefined || actual?.constraint === constraint);
}

/** True when `error` is a null refused by the NOT NULL of `table`.`column`. */
export function isNotNullViolation(error: unknown, table: string, column: string): boolean {
  const e = error as { driverError?: { code?: string; table?: string; column?: string }; code?: string; table?: string; column?: string };
  const actual = e?.driverError ?? e;
  return actual?.code === PG_NOT_NULL_VIOLATION && actual.table === table && actual.column === column;
}

export { isUuid } from '@app/common';
