/**
 * What kind of refusal an error is, independent of any transport. Each transport has one filter
 * that maps a kind to its own answer: an HTTP status (REST, pages), an RFC 6749 error (OAuth) or
 * a JSON-RPC error or tool error (MCP).
 */
export type ErrorKind =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'too_large'
  | 'rate_limited'
  | 'unavailable';

/**
 * What services throw: a stable machine code, a human message and the kind of refusal.
 * Services never build transport answers themselves.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly kind: ErrorKind = 'invalid_input',
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string) {
    super('not_found', `${what} not found`, 'not_found');
  }
}

export class ConflictError extends DomainError {
  constructor(code: string, message: string) {
    super(code, message, 'conflict');
  }
}

/** A rate limit was hit; the transports tell the caller when to retry (HTTP: `Retry-After`). */
export class TooManyRequestsError extends DomainError {
  constructor(
    code: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, message, 'rate_limited');
  }
}

/** Seconds after which a rate-limited caller may retry, when the error says so. */
export function retryAfterOf(error: DomainError): number | undefined {
  const seconds = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' ? seconds : undefined;
}

/** Fields a REST answer adds beside `code` when the error carries them (e.g. how to refresh a sign-in). */
export function restFieldsOf(error: DomainError): Record<string, unknown> {
  const fields = (error as { restFields?: unknown }).restFields;
  return fields !== null && typeof fields === 'object' ? (fields as Record<string, unknown>) : {};
}

/**
 * Something the service depends on (its database) does not answer: the caller should retry
 * after `retryAfterSeconds` (HTTP: 503 with `Retry-After`; OAuth: `temporarily_unavailable`).
 */
export class UnavailableError extends DomainError {
  constructor(
    code: string,
    message: string,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(code, message, 'unavailable');
    if (options && 'cause' in options) (this as { cause?: unknown }).cause = options.cause;
  }
}
