import { STATUS_CODES } from 'node:http';
import type { ErrorKind } from './domain-error';

/** The HTTP status of each error kind, shared by the HTTP transports (REST, OAuth, pages). */
export const HTTP_STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

/** NestJS's REST error shape: `{statusCode, message, error}` (plus `code` for domain errors). */
export function restErrorBody(status: number, message: string | string[], code?: string) {
  const body = { statusCode: status, message, error: STATUS_CODES[status] ?? 'Error' };
  return code === undefined ? body : { ...body, code };
}
