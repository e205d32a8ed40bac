/**
 * What services throw: a stable machine code, a human message and the HTTP status the global
 * filter answers with. Services never build HTTP responses themselves.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 422 | 429 = 400,
    /** Response headers the filter adds (e.g. `Retry-After` on a 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string) {
    super('not_found', `${what} not found`, 404);
  }
}

export class ConflictError extends DomainError {
  constructor(code: string, message: string) {
    super(code, message, 409);
  }
}

/** 429: a rate limit was hit; the answer carries `Retry-After`. */
export class TooManyRequestsError extends DomainError {
  constructor(
    code: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, message, 429, { 'Retry-After': String(retryAfterSeconds) });
  }
}
