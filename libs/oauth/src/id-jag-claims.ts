import { decodeJwt, decodeProtectedHeader, errors as joseErrors, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import { IDP_SIGNING_ALGORITHMS } from '@app/identity';
import { OAuthError } from './oauth.errors';

/** The JWT `typ` header of an ID-JAG (RFC 8725 §3.11 explicit typing). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** Clock skew tolerated on `exp`, `iat` and `nbf`. */
export const SKEW_SECONDS = 60;
/** The longest an ID-JAG may live (`exp - iat`) and the oldest `iat` accepted (SPEC §10). */
export const MAX_ID_JAG_AGE_SECONDS = 600;

function invalidGrant(description: string): OAuthError {
  return new OAuthError('invalid_grant', description);
}

/** What a `jwtVerify` failure tells the client, naming the check and never echoing the assertion. */
export function jwtVerifyRefusal(error: unknown, header: ProtectedHeaderParameters, unverified: JWTPayload, ourIssuer: string): string {
  if (error instanceof joseErrors.JOSEAlgNotAllowed) {
    return typeof header.alg !== 'string' || header.alg.toLowerCase() === 'none' || /^HS/i.test(header.alg)
      ? "The assertion's alg must be an asymmetric signature algorithm (none and HS* are refused)"
      : `The assertion's alg must be one of ${IDP_SIGNING_ALGORITHMS.join(', ')}`;
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) return "The ID-JAG's signing key (kid) is not in the identity provider's key set";
  if (error instanceof joseErrors.JWTClaimValidationFailed || error instanceof joseErrors.JWTExpired) {
    if (error.reason === 'missing') return `The ID-JAG has no ${error.claim} claim`;
    switch (error.claim) {
      case 'typ':
        return `The assertion's typ header must be ${ID_JAG_TYP} (an ID-JAG)`;
      case 'aud':
        return `The ID-JAG's aud is not this authorization server's issuer (${ourIssuer})`;
      case 'iss':
        return "The ID-JAG's issuer is not the identity provider of the organisation this client belongs to";
      case 'exp':
        return 'The ID-JAG has expired (exp)';
      case 'nbf':
        return 'The ID-JAG is not valid yet (nbf)';
      case 'iat':
        if (error instanceof joseErrors.JWTExpired) return tooLong(unverified) ?? `The ID-JAG was issued more than ${MAX_ID_JAG_AGE_SECONDS} seconds ago (iat)`;
        return 'The ID-JAG was issued in the future (iat)';
    }
    return `The ID-JAG's ${error.claim} claim is not usable`;
  }
  return "The ID-JAG's signature does not verify with the identity provider's keys";
}

/** The refusal of an ID-JAG that lives longer than allowed (`exp - iat`), or `undefined`. */
export function tooLong(claims: JWTPayload): string | undefined {
  if (typeof claims.exp === 'number' && typeof claims.iat === 'number' && claims.exp - claims.iat > MAX_ID_JAG_AGE_SECONDS) {
    return `The ID-JAG lives longer than ${MAX_ID_JAG_AGE_SECONDS} seconds (exp - iat)`;
  }
  return undefined;
}

/** The ID-JAG's tenant claim: `tenant`, Microsoft Entra's `tid` or Google's `hd`. */
export function tenantClaim(claims: Record<string, unknown>): string | undefined {
  for (const name of ['tenant', 'tid', 'hd']) if (typeof claims[name] === 'string' && claims[name]) return claims[name] as string;
  return undefined;
}

export function readHeader(assertion: string): ProtectedHeaderParameters {
  try {
    return decodeProtectedHeader(assertion);
  } catch {
    throw invalidGrant('The assertion is not a JWT (three base64url parts, a JSON header)');
  }
}

export function readClaims(assertion: string): JWTPayload & Record<string, unknown> {
  try {
    return decodeJwt(assertion) as JWTPayload & Record<string, unknown>;
  } catch {
    throw invalidGrant("The assertion's claims are not a JSON object");
  }
}
