import { ConflictError, DomainError } from '@app/common';

export class EmailTakenError extends ConflictError {
  constructor() {
    super('email_taken', 'An account with this email already exists');
  }
}

export class SignupDisabledError extends DomainError {
  constructor() {
    super('signup_disabled', 'Sign-up is disabled on this deployment; an administrator creates accounts', 403);
  }
}

/** One message for an unknown email and a wrong password, so the answer does not reveal which. */
export class InvalidLoginError extends DomainError {
  constructor() {
    super('invalid_credentials', 'Invalid email or password', 401);
  }
}
