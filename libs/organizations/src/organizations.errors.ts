import { NotFoundError } from '@app/common';

export class OrganizationNotFoundError extends NotFoundError {
  constructor() {
    super('Organization');
  }
}

export class ProjectNotFoundError extends NotFoundError {
  constructor() {
    super('Project');
  }
}
