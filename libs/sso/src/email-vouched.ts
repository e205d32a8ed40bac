import type { IdTokenClaims } from './sso-relying-party';

/**
 * Whether the identity provider vouches for the ID token's email. OpenID Connect's
 * `email_verified: true`; or, from Microsoft Entra ID, which does not send `email_verified`, its
 * optional claim `xms_edov: true` ("email domain owner verified": the tenant that owns the email's
 * domain has verified it), in a token that carries Entra's tenant claim `tid`. The organisation's
 * own IdP signs either claim and is trusted to vouch either way; `tid` only says the claim is
 * Entra's (docs/sso.md, "Microsoft Entra ID").
 */
export function idpVouchesForEmail(claims: IdTokenClaims): boolean {
  if (claims.email_verified === true) return true;
  return typeof claims.tid === 'string' && claims.tid.length > 0 && claims.xms_edov === true;
}
