import { ConflictError, NotFoundError } from '@app/common';

export class ServiceKeyNotFoundError extends NotFoundError {
  constructor() {
    super('Service key');
  }
}

export class ProjectTokenNotFoundError extends NotFoundError {
  constructor() {
    super('Project token');
  }
}

export class ServiceKeyRevokedError extends ConflictError {
  constructor() {
    super('service_key_revoked', 'The service key is revoked; create a new key to derive tokens');
  }
}

export class ProjectTokenExistsError extends ConflictError {
  constructor() {
    super(
      'project_token_exists',
      'This service key already has an active token for the project; revoke it first to derive a new one',
    );
  }
}

/** The token is revoked or already rotating out: only the (key, project)'s active token rotates. */
export class ProjectTokenNotActiveError extends ConflictError {
  constructor() {
    super('project_token_not_active', 'Only an active token can be rotated; this one is revoked or already rotating out');
  }
}

/** Besides the active token, at most one token per (key, project) rotates out at a time. */
export class ProjectTokenRotatingError extends ConflictError {
  constructor(until?: Date) {
    super(
      'project_token_rotating',
      'Another token of this key and project is still rotating out' +
        (until ? ` until ${until.toISOString()}` : '') +
        '; revoke it or wait for its overlap to end before rotating again',
    );
  }
}
