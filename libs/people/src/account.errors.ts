import { ConflictError, DomainError, TooManyRequestsError } from '@app/common';
import { waitText } from './people.errors';

export class EmailTakenError extends ConflictError {
  constructor() {
    super('email_taken', 'An account with this email already exists');
  }
}

export class SignupDisabledError extends DomainError {
  constructor() {
    super('signup_disabled', 'Sign-up is disabled on this deployment; an administrator creates accounts', 'forbidden');
  }
}

/** A password change whose current password is wrong (400 naming the field; counted like a failed sign-in). */
export class WrongCurrentPasswordError extends DomainError {
  constructor() {
    super('wrong_current_password', 'currentPassword is not the current password of this account', 'invalid_input');
  }
}

export class TooManySignupsError extends TooManyRequestsError {
  /** The sentence the HTML sign-up page shows. */
  readonly pageMessage: string;

  constructor(retryAfterSeconds: number) {
    super('too_many_signups', `Too many sign-ups from this address; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds);
    this.pageMessage = `Too many accounts were created from this network recently. Please wait ${waitText(retryAfterSeconds)} before trying again.`;
  }
}

export class TooManyResetAttemptsError extends TooManyRequestsError {
  /** The sentence the HTML reset page shows. */
  readonly pageMessage: string;

  constructor(retryAfterSeconds: number) {
    super('too_many_reset_attempts', `Too many password-reset attempts from this address; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds);
    this.pageMessage = `Too many password-reset attempts from this network. Please wait ${waitText(retryAfterSeconds)} before trying again.`;
  }
}

/**
 * A password sign-up for an email of a verified domain (SPEC §10): such accounts come from the
 * domain's organisation's single sign-on (or its SCIM), so nobody takes the address first.
 */
export class SsoRequiredForDomainError extends ConflictError {
  constructor(readonly domain: string) {
    super(
      'sso_required_for_domain',
      `Accounts of ${domain} addresses come from its organization's single sign-on: sign in with single sign-on (/auth/sso/start) instead of signing up`,
    );
  }
}
