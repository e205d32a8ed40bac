import * as oidc from 'openid-client';
import { IdentityProviderError } from './identity.errors';

/** The fetcher's own refusal inside an openid-client or jose error (they wrap what `customFetch` throws). */
export function fetcherRefusal(error: unknown): IdentityProviderError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof IdentityProviderError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * What an openid-client `discovery()` failure means, as an `IdentityProviderError` of kind
 * `unavailable`: the fetcher's own refusal (unreachable, a status other than 200, too large), a
 * document that names another issuer, or one that cannot be read.
 */
export function discoveryFailure(error: unknown, issuer: string): IdentityProviderError {
  const own = fetcherRefusal(error);
  if (own) return own;
  if (error instanceof oidc.ClientError && error.code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED') {
    return issuerMismatch((error.cause as { body?: { issuer?: unknown } } | undefined)?.body?.issuer, issuer);
  }
  const reason = error instanceof Error ? error.message : 'it could not be read';
  return new IdentityProviderError('invalid_discovery', `The identity provider's discovery document could not be used (${reason})`, 'unavailable', 'discovery');
}

/** A discovery document naming another issuer than the one asked for (compared exactly, OpenID Connect Discovery §4.3). */
export function issuerMismatch(named: unknown, issuer: string): IdentityProviderError {
  return new IdentityProviderError(
    'discovery_issuer_mismatch',
    `The discovery document names the issuer ${JSON.stringify(String(named)).slice(0, 200)}, not ${issuer}`,
    'unavailable',
    'discovery',
  );
}
