import { NotFoundException } from '@nestjs/common';

/**
 * Another organisation, or one that does not exist: the same 404 for both, so it never confirms
 * that an organisation exists. Over REST its body is `{"message":"Organization not found"}` as
 * before; the pages word it for a person (the dashboard's filter).
 */
export class OrganizationNotFound extends NotFoundException {
  constructor() {
    super('Organization not found');
  }
}
