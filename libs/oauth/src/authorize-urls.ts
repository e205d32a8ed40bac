import type { PendingAuthorization } from './store/authorization-requests.repository';
import type { AuthorizeRedirectErrorCode } from './oauth.errors';
import { withResponseParams } from './redirect-uri';

/** An error answer to the client at its (validated) redirect URI, with `state` and `iss` (RFC 9207). */
export function errorRedirect(
  issuer: string,
  redirectUri: string,
  error: AuthorizeRedirectErrorCode,
  description: string,
  state: string | null,
): string {
  return withResponseParams(redirectUri, { error, error_description: description, state, iss: issuer });
}

/** The authorize request a pending one came from, to start over (e.g. signed in as someone else). */
export function authorizePath(pending: PendingAuthorization): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: pending.clientId });
  if (pending.redirectUriSent) query.set('redirect_uri', pending.redirectUri);
  if (pending.state !== null) query.set('state', pending.state);
  query.set('code_challenge', pending.codeChallenge);
  query.set('code_challenge_method', 'S256');
  query.set('scope', pending.requestedPermissions.join(' '));
  if (pending.resource) query.set('resource', pending.resource);
  return `/api/agent/oauth/authorize?${query.toString()}`;
}
