/**
 * Errors of the OAuth endpoints. `OAuthError` answers RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 7009
 * JSON (`{error, error_description}`); `OAuthPageError` answers an HTML page for the browser
 * steps where no redirect to the client is safe (unknown client, unregistered redirect URI,
 * consent without CSRF token …).
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unsupported_token_type'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable'
  | 'server_error';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 429 | 500 = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/** `invalid_client` (401); with `WWW-Authenticate: Basic` when the client tried HTTP Basic (RFC 6749 §5.2). */
export function invalidClient(description: string, usedBasic: boolean): OAuthError {
  return new OAuthError('invalid_client', description, 401, usedBasic ? { 'WWW-Authenticate': 'Basic realm="agent-gateway", charset="UTF-8"' } : {});
}

/** An error shown to the person as an HTML page (never a redirect to an unvalidated URI). */
export class OAuthPageError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404,
    readonly title: string,
    readonly detail: string,
  ) {
    super(`${title}: ${detail}`);
    this.name = 'OAuthPageError';
  }
}

/** Errors of the authorize endpoint sent back to the validated redirect URI (RFC 6749 §4.1.2.1). */
export type AuthorizeRedirectErrorCode =
  | 'invalid_request'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'server_error';
