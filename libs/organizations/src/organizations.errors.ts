import { NotFoundError } from '@app/common';

export class OrganizationNotFoundError extends NotFoundError {
  constructor() {
    super('Organization');
  }
}
