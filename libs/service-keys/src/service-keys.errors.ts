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

/** The project does not exist, is deleted, or belongs to another organisation: all the same to the caller. */
export class ProjectNotFoundError extends NotFoundError {
  constructor() {
    super('Project');
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
