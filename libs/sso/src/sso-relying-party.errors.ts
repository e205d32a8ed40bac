import * as oidc from 'openid-client';
import { fetcherRefusal, IdentityProviderError, type IdpMetadata } from '@app/identity';
import { ERROR_CODE, SsoSignInError } from './sso.errors';

/** How long a person is asked to wait before trying again when the IdP cannot be reached (`Retry-After`). */
export const IDP_RETRY_AFTER_SECONDS = 30;

/**
 * The identity provider could not be reached, or answered something that cannot be read (its
 * discovery document, key set or token endpoint): an outage, 503 with `Retry-After`, not a
 * refusal of the person. The message names the IdP's problem, never a secret.
 */
export class IdpUnreachableError extends SsoSignInError {
  readonly retryAfterSeconds = IDP_RETRY_AFTER_SECONDS;

  constructor(readonly failure: IdentityProviderError) {
    super(
      'identity_provider_unreachable',
      `The identity provider cannot be reached just now (${failure.message.replace(/\.$/, '')}). Please try again in a few minutes.`,
      'unavailable',
    );
  }
}

/** oauth4webapi's error codes, as openid-client's `ClientError.code` carries them. */
const CODE = {
  notJson: 'OAUTH_RESPONSE_IS_NOT_JSON',
  notConform: 'OAUTH_RESPONSE_IS_NOT_CONFORM',
  parse: 'OAUTH_PARSE_ERROR',
  timestamp: 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  claim: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  keySelection: 'OAUTH_KEY_SELECTION_FAILED',
  unsupported: 'OAUTH_UNSUPPORTED_OPERATION',
} as const;

/** The OperationProcessingError openid-client wraps in its `ClientError`. */
function inner(error: unknown): { message: string; code?: string; cause?: unknown } | undefined {
  if (!(error instanceof oidc.ClientError)) return undefined;
  const cause = error.cause;
  return cause instanceof Error ? { message: cause.message, code: error.code, cause: (cause as { cause?: unknown }).cause } : { message: error.message, code: error.code, cause };
}

/**
 * A failure of the answer or of the token endpoint, before the ID token: the IdP out of reach (or
 * its token answer unreadable), the code refused, `iss` missing or another's (RFC 9207).
 * `undefined`: the failure is the ID token's.
 */
export function tokenEndpointRefusal(error: unknown): SsoSignInError | undefined {
  const own = fetcherRefusal(error);
  if (own) return new IdpUnreachableError(own);
  if (error instanceof oidc.ResponseBodyError) {
    const code = ERROR_CODE.test(error.error) ? error.error : `HTTP ${error.status}`;
    return new SsoSignInError('code_exchange_refused', `The identity provider refused the sign-in code (${code}).`, 'unauthenticated');
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    return new SsoSignInError('code_exchange_refused', 'The identity provider refused the sign-in code (HTTP 401).', 'unauthenticated');
  }
  const failure = inner(error);
  if (!failure) return undefined;
  if (failure.message.includes('"iss" (issuer) missing')) {
    return new SsoSignInError('sso_issuer_missing', 'The identity provider says it names itself in its answers (iss), but this answer does not. Start again.', 'invalid_input');
  }
  if (failure.message.includes('"iss" (issuer) response parameter')) {
    return new SsoSignInError('sso_issuer_mismatch', 'The answer came from another identity provider than the one this sign-in started with.', 'invalid_input');
  }
  if (failure.message.includes('"id_token" property')) {
    return new SsoSignInError('no_id_token', "The identity provider's token endpoint answered no ID token.", 'unauthenticated');
  }
  const unreadable =
    failure.code === CODE.notJson || failure.code === CODE.notConform || (failure.code === CODE.parse && !failure.message.includes('JWT'));
  if (unreadable) {
    return new IdpUnreachableError(new IdentityProviderError('identity_provider_unreachable', "The identity provider's token endpoint answered something that is not a token response", 'unavailable', 'token'));
  }
  return undefined;
}

/**
 * An ID token whose `auth_time` is missing or older than the `max_age` the request asked (a
 * step-up): the step-up answers it as not recent, audited with the token's subject.
 */
export class AuthTimeRefusal extends SsoSignInError {
  constructor(readonly subject: string | undefined) {
    super('auth_time_not_recent', "The identity provider's ID token was refused: it carries no recent auth_time.", 'unauthenticated');
  }
}

/** An ID token that failed a check of openid-client: the refusal names the check, never the token. */
export function idTokenRefusal(error: unknown): SsoSignInError {
  const failure = inner(error);
  if (failure && (failure.message.includes('"auth_time"') || failure.message.includes('since the last End-User authentication'))) {
    const claims = (failure.cause as { claims?: { sub?: unknown } } | undefined)?.claims;
    return new AuthTimeRefusal(typeof claims?.sub === 'string' ? claims.sub : undefined);
  }
  return new SsoSignInError('invalid_id_token', `The identity provider's ID token was refused: ${reason(error)}.`);
}

function reason(error: unknown): string {
  const failure = inner(error);
  if (!failure) return 'it could not be checked';
  if (failure.code === CODE.unsupported) return 'its signature algorithm is not accepted';
  const details = (failure.cause ?? {}) as { claim?: unknown; claims?: { aud?: unknown; azp?: unknown } };
  switch (failure.code) {
    case CODE.timestamp:
      if (details.claim === 'exp') return 'it has expired';
      if (details.claim === 'nbf') return 'it is not valid yet (nbf)';
      if (details.claim === 'auth_time') return 'the sign-in at the identity provider is too old (auth_time)';
      return 'its issue time (iat) is unusable';
    case CODE.claim:
      if (details.claim === 'aud' && Array.isArray(details.claims?.aud) && details.claims.aud.length > 1 && details.claims.azp === undefined) {
        return 'it was issued to another client (azp)';
      }
      if (details.claim === 'aud') return 'it was issued to another client (aud)';
      if (details.claim === 'azp') return 'it was issued to another client (azp)';
      if (details.claim === 'iss') return 'it names another issuer (iss)';
      if (details.claim === 'nonce') return "its nonce is not this sign-in's";
      return `its ${String(details.claim)} claim is wrong`;
    case CODE.keySelection:
      return "no key of the identity provider's key set matches its signature";
  }
  if (failure.message.includes('"alg"')) return 'its signature algorithm is not accepted';
  if (failure.message.includes('signature verification failed')) return 'its signature does not verify';
  if (failure.message.includes('missing') || failure.message.includes('must be')) return `a required claim is missing or malformed (${failure.message})`;
  return 'it is not a well-formed signed token';
}

/**
 * Runs a call to the IdP at sign-in: an IdP that cannot be reached or read is an outage (503,
 * counted and logged), any other failure this sign-in's refusal (the message names the IdP's
 * problem, never a secret).
 */
export async function reachIdp<T>(metadata: IdpMetadata, issuer: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof IdentityProviderError)) throw error;
    if (error.kind === 'unavailable') {
      metadata.reportFailure(error, 'sign_in', issuer);
      throw new IdpUnreachableError(error);
    }
    throw new SsoSignInError(error.code, `${error.message.replace(/\.$/, '')}.`, 'unauthenticated');
  }
}
