import { DomainError, type ErrorKind } from '@app/common';

/**
 * An identity provider could not be used: its settings are invalid, its discovery document or key
 * set could not be fetched or is unusable, a token it issued failed a check. The message names
 * what is wrong and never carries a secret or a token.
 */
export class IdentityProviderError extends DomainError {
  constructor(
    code: string,
    message: string,
    kind: ErrorKind = 'invalid_input',
    /** Set when the IdP could not be reached or its answer not read: what was being fetched. */
    readonly fetching?: 'discovery' | 'jwks' | 'token',
  ) {
    super(code, message, kind);
    this.name = 'IdentityProviderError';
  }
}
