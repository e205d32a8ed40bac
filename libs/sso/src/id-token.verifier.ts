import { Injectable } from '@nestjs/common';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { IDP_SIGNING_ALGORITHMS, IdpMetadata } from '@app/identity';
import { SsoSignInError } from './sso.errors';

/** Clock skew allowed on `exp`, `iat` (and `nbf`). */
export const CLOCK_SKEW_SECONDS = 60;

export interface IdTokenClaims extends JWTPayload {
  iss: string;
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  given_name?: unknown;
  family_name?: unknown;
  nonce?: unknown;
  [claim: string]: unknown;
}

/**
 * Checks an ID token (OpenID Connect Core §3.1.3.7): the signature by a key of the issuer's key
 * set (an unknown `kid` refetches it: key rotation), one of `IDP_SIGNING_ALGORITHMS`, `iss`, `aud`
 * (the client id; with several audiences `azp` must be the client id, and `azp`, when present,
 * always), `exp` and `iat` with `CLOCK_SKEW_SECONDS` of skew, `sub`, and the `nonce` of this
 * sign-in. A failure names the check, never the token.
 */
@Injectable()
export class IdTokenVerifier {
  constructor(private readonly metadata: IdpMetadata) {}

  async verify(idToken: string, expected: { issuer: string; clientId: string; nonce: string }): Promise<IdTokenClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, await this.metadata.keys(expected.issuer), {
        algorithms: [...IDP_SIGNING_ALGORITHMS],
        issuer: expected.issuer,
        audience: expected.clientId,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat'],
      }));
    } catch (error) {
      throw new SsoSignInError('invalid_id_token', `The identity provider's ID token was refused: ${reason(error)}.`);
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.iat !== 'number' || payload.iat > now + CLOCK_SKEW_SECONDS) {
      throw new SsoSignInError('invalid_id_token', "The identity provider's ID token was refused: it was issued in the future.");
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const azp = (payload as { azp?: unknown }).azp;
    if ((audiences.length > 1 && azp === undefined) || (azp !== undefined && azp !== expected.clientId)) {
      throw new SsoSignInError('invalid_id_token', "The identity provider's ID token was refused: it was issued to another client (azp).");
    }
    if (typeof payload.nonce !== 'string' || payload.nonce !== expected.nonce) {
      throw new SsoSignInError('invalid_id_token', "The identity provider's ID token was refused: its nonce is not this sign-in's.");
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 255) {
      throw new SsoSignInError('invalid_id_token', "The identity provider's ID token was refused: it has no usable subject (sub).");
    }
    return payload as IdTokenClaims;
  }
}

function reason(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'it has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    const claim = error.claim;
    if (claim === 'aud') return 'it was issued to another client (aud)';
    if (claim === 'iss') return 'it names another issuer (iss)';
    if (claim === 'nbf') return 'it is not valid yet (nbf)';
    if (claim === 'iat') return 'its issue time (iat) is unusable';
    return `its ${claim} claim is missing or wrong`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'its signature algorithm is not accepted';
  if (error instanceof errors.JWKSNoMatchingKey) return "no key of the identity provider's key set matches its signature";
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (error instanceof errors.JOSEError) return 'it is not a well-formed signed token';
  if (error instanceof Error && error.name === 'IdentityProviderError') return error.message.replace(/\.$/, '');
  return 'it could not be checked';
}
