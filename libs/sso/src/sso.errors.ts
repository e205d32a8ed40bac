import { DomainError, type ErrorKind, TooManyRequestsError } from '@app/common';

/** An error code as an IdP may send it; anything else is not shown to the person. */
export const ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * A single sign-on that cannot go on: the browser-bound state is missing or does not match, the
 * identity provider refused or sent a token that fails a check, the person may not join. The
 * message says what happened in words the person can act on; it never carries a token or a
 * secret, and says nothing about other organisations.
 */
export class SsoSignInError extends DomainError {
  constructor(code: string, message: string, kind: ErrorKind = 'unauthenticated') {
    super(code, message, kind);
    this.name = 'SsoSignInError';
  }
}

/**
 * Too many single sign-on starts or callbacks from this address within the minute (each one makes
 * the service talk to an identity provider): refused with 429 and `Retry-After`.
 */
export class TooManySsoAttemptsError extends TooManyRequestsError {
  constructor(retryAfterSeconds: number) {
    super(
      'too_many_sso_attempts',
      `Too many single sign-on attempts from this network. Please wait ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'} before trying again.`,
      retryAfterSeconds,
    );
    this.name = 'TooManySsoAttemptsError';
  }
}
