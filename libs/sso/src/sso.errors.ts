import { DomainError, type ErrorKind } from '@app/common';

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
