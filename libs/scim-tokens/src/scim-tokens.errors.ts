import { DomainError } from '@app/common';

/** No live SCIM token of the organisation by that id (its REST route and its page answer 404). */
export class ScimTokenNotFoundError extends DomainError {
  constructor() {
    super('not_found', 'SCIM token not found', 'not_found');
  }
}
