import { clipText } from '@app/common';
import { STANDARD_SSO_SCOPES } from '@app/identity';
import type { IdTokenClaims } from './sso-relying-party';
import type { PendingLink, SignInState } from './sso-cookies';
import { SsoSignInError } from './sso.errors';

/** The OpenID scopes always asked for; an IdP's settings may add more (`scopes`, e.g. `groups`). */
export const SSO_SCOPES = STANDARD_SSO_SCOPES.join(' ');

/** The `scope` of the authorization request: the standard scopes, then the IdP's extra ones. */
export function signInScope(extra: readonly string[] | null | undefined): string {
  return [SSO_SCOPES, ...(extra ?? [])].join(' ');
}

export { ERROR_CODE } from './sso.errors';

export interface StartedSignIn {
  authorizationUrl: string;
  state: SignInState;
}

/** How a callback ends: a session, or a password check before an existing account is linked. */
export type SignInOutcome =
  | { kind: 'signed_in'; accessToken: string; next: string }
  | { kind: 'link_required'; link: PendingLink };

/** The refusal for an email that no organisation routes to single sign-on (nothing said about who else uses it). */
export class SsoNotSetUpError extends SsoSignInError {
  constructor() {
    super('sso_not_set_up', 'This email address is not set up for single sign-on. Sign in with your password.', 'invalid_input');
  }
}

export function alreadyLinked(): SsoSignInError {
  return new SsoSignInError(
    'already_linked',
    'Your identity provider account or this account is already linked to another one here. Ask an administrator of your organisation.',
    'conflict',
  );
}

export function deprovisioned(): SsoSignInError {
  return new SsoSignInError(
    'deprovisioned',
    "Your organisation's identity provisioning removed your access to it. Ask an administrator of your organisation.",
    'forbidden',
  );
}

/** A name for a new account: the ID token's `name`, else given and family names, else the email's local part. */
export function displayName(claims: IdTokenClaims, email: string): string {
  const clean = (value: unknown) => (typeof value === 'string' ? value.replace(/[\u0000-\u001f\u007f]/g, '').trim() : '');
  const name = clean(claims.name) || [clean(claims.given_name), clean(claims.family_name)].filter(Boolean).join(' ');
  return clipText(name || email.split('@')[0]!, 100);
}

/**
 * The IdP tenant an ID token names (`tenant`, as ID-JAGs carry it; Microsoft Entra's `tid`; Google's `hd`):
 * recorded at an admin's sign-in so that ID-JAGs of an issuer shared by several tenants reach the
 * right organisation.
 */
export function tenantOf(claims: IdTokenClaims): string | null {
  for (const name of ['tenant', 'tid', 'hd']) {
    const value = claims[name];
    if (typeof value === 'string' && value.length > 0 && value.length <= 200) return value;
  }
  return null;
}
