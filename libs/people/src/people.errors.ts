import { ConflictError, DomainError, NotFoundError } from '@app/common';

export class MemberNotFoundError extends NotFoundError {
  constructor() {
    super('Member');
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

export class InvitationNotFoundError extends NotFoundError {
  constructor() {
    super('Pending invitation');
  }
}

export class HandOverToSelfError extends DomainError {
  constructor() {
    super('invalid_hand_over', 'handOver passes the keys to you, the acting admin: it cannot be used on yourself', 'invalid_input');
  }
}

/** The page's acceptance: the invitation names another email than the signed-in account's. */
export class InvitationForAnotherEmailError extends DomainError {
  constructor() {
    super('invitation_for_another_email', 'This invitation was sent to another email than this account’s: sign in with that account, or ask for a new invitation', 'forbidden');
  }
}
