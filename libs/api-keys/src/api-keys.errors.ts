import { ConflictError, NotFoundError } from '@app/common';

export class ApiKeyNotFoundError extends NotFoundError {
  constructor() {
    super('API key');
  }
}

/** Revoked, expired or already rotating out: only an active key rotates. */
export class ApiKeyNotActiveError extends ConflictError {
  constructor() {
    super('api_key_not_active', 'Only an active key can be rotated; this one is revoked, expired or already rotating out');
  }
}

/** The key it replaced is still rotating out: at most one more key per rotation. */
export class ApiKeyRotatingError extends ConflictError {
  constructor(until: Date) {
    super(
      'api_key_rotating',
      `The key this one replaced is still rotating out until ${new Date(until).toISOString()}; ` +
        'revoke it or wait for its overlap to end before rotating again',
    );
  }
}
