import { IdentityProviderError } from './identity.errors';
import type { DiscoverySummary } from './identity-provider-view';
import type { IdpDiscovery, IdpMetadata } from './idp-metadata.service';

const err = (code: string, message: string) => new IdentityProviderError(code, message);

/**
 * The issuer's discovery document and key set, fetched afresh, checked for what sign-in needs
 * (PKCE with S256 where methods are listed, at least one usable signing key), summarised as saved.
 */
export async function checkedDiscovery(metadata: IdpMetadata, issuer: string): Promise<DiscoverySummary> {
  try {
    return await summary(metadata, issuer);
  } catch (error) {
    // An IdP that cannot be reached or read when its settings are saved is the setting's problem: 400 naming it.
    if (error instanceof IdentityProviderError && error.kind === 'unavailable') throw err(error.code, error.message);
    throw error;
  }
}

async function summary(metadata: IdpMetadata, issuer: string): Promise<DiscoverySummary> {
  const doc: IdpDiscovery = await metadata.discovery(issuer, { fresh: true });
  const methods = doc.code_challenge_methods_supported;
  if (methods !== undefined && (!Array.isArray(methods) || !methods.includes('S256'))) {
    throw err(
      'pkce_s256_unsupported',
      `The identity provider does not support PKCE with S256 (its discovery document lists code_challenge_methods_supported ${JSON.stringify(methods).slice(0, 200)})`,
    );
  }
  const keys = await metadata.signingKeys(issuer, { fresh: true });
  if (keys.length === 0) {
    throw err('invalid_jwks', "The identity provider's key set (jwks_uri) holds no usable signing key (RSA, EC or OKP, for signatures)");
  }
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    issuer: doc.issuer,
    authorizationEndpoint: doc.authorization_endpoint,
    tokenEndpoint: doc.token_endpoint,
    jwksUri: doc.jwks_uri,
    userinfoEndpoint: text(doc.userinfo_endpoint),
    endSessionEndpoint: text(doc.end_session_endpoint),
    codeChallengeMethods: strings(methods),
    pkceAdvertised: methods !== undefined,
    signingAlgorithms: strings(doc.id_token_signing_alg_values_supported),
    tokenEndpointAuthMethods: strings(doc.token_endpoint_auth_methods_supported),
    signingKeys: keys.length,
    fetchedAt: new Date().toISOString(),
  };
}
