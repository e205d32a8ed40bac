import { ConflictError, DomainError, NotFoundError } from '@app/common';

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

export class MemberNotFoundError extends NotFoundError {
  constructor() {
    super('Member');
  }
}

export class NoSuchUserError extends DomainError {
  constructor() {
    super('user_not_found', 'No account uses this email; the person must sign up first', 'not_found');
  }
}

export class AlreadyMemberError extends ConflictError {
  constructor() {
    super('already_member', 'This person is already a member of the organization');
  }
}

export class LastAdminError extends ConflictError {
  constructor() {
    super('last_admin', 'The organization must keep at least one admin: promote another member first');
  }
}
