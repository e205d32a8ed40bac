/**
 * The one list of signature algorithms accepted from identity providers, for ID tokens at single
 * sign-on and for ID-JAG assertions: asymmetric only (never `none`, never HS*: a client secret is
 * no signing key). `EdDSA` and `Ed25519` are the two names of Ed25519 (RFC 8037, RFC 9864).
 */
export const IDP_SIGNING_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
