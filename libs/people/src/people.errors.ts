import { ConflictError, DomainError, NotFoundError, TooManyRequestsError } from '@app/common';

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

/** One message for an unknown email and a wrong password, so the answer does not reveal which. */
export class InvalidLoginError extends DomainError {
  constructor() {
    super('invalid_credentials', 'Invalid email or password', 'unauthenticated');
  }
}

/**
 * Too many failed logins for this email or from this address: refused before the password is
 * checked, so a correct password is refused too until the window ends.
 */
export class TooManyLoginAttemptsError extends TooManyRequestsError {
  /** The sentence the HTML sign-in page shows. */
  readonly pageMessage: string;

  constructor(retryAfterSeconds: number) {
    super('too_many_login_attempts', `Too many failed sign-in attempts; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds);
    this.pageMessage = `Too many failed sign-in attempts. Please wait ${waitText(retryAfterSeconds)} before trying again.`;
  }
}

/** "45 seconds", "1 minute", "15 minutes" (rounded up): how long a page asks a refused person to wait. */
export function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
