import { DomainError, type ErrorKind } from '@app/common';

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

/** The kind of each OAuth error code, which the filters map to an HTTP status. */
const KIND_OF_CODE: Partial<Record<OAuthErrorCode, ErrorKind>> = {
  invalid_client: 'unauthenticated',
  temporarily_unavailable: 'unavailable',
  server_error: 'unavailable',
};

/** What an OAuth error may say beyond its code and description. */
export interface OAuthErrorOptions {
  /** Rate limited: retry after this many seconds (`temporarily_unavailable` with 429 and `Retry-After`). */
  retryAfterSeconds?: number;
  /** An upstream (an identity provider) is out of reach: 503, with `Retry-After` when `retryAfterSeconds` is given. */
  outage?: boolean;
  /** `invalid_client` after HTTP Basic: the answer challenges with `WWW-Authenticate: Basic` (RFC 6749 §5.2). */
  basicChallenge?: boolean;
}

/** An RFC 6749 / 7591 / 7009 error: a domain error whose code is the OAuth `error` value. */
export class OAuthError extends DomainError {
  readonly retryAfterSeconds?: number;
  readonly basicChallenge: boolean;

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    options: OAuthErrorOptions = {},
  ) {
    super(error, description, options.outage ? 'unavailable' : options.retryAfterSeconds !== undefined ? 'rate_limited' : (KIND_OF_CODE[error] ?? 'invalid_input'));
    this.name = 'OAuthError';
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.basicChallenge = options.basicChallenge ?? false;
  }
}

/** `invalid_client` (401); with `WWW-Authenticate: Basic` when the client tried HTTP Basic (RFC 6749 §5.2). */
export function invalidClient(description: string, usedBasic: boolean): OAuthError {
  return new OAuthError('invalid_client', description, { basicChallenge: usedBasic });
}

/** The kind of each status the browser steps' error pages use. */
const PAGE_KIND = { 400: 'invalid_input', 401: 'unauthenticated', 403: 'forbidden', 404: 'not_found', 429: 'rate_limited' } as const;

/**
 * An error shown to the person as an HTML page (never a redirect to an unvalidated URI). The
 * first argument names the kind by the status the page answers with; a 429 page says when to
 * retry (`Retry-After`).
 */
export class OAuthPageError extends DomainError {
  constructor(
    status: keyof typeof PAGE_KIND,
    readonly title: string,
    readonly detail: string,
    readonly retryAfterSeconds?: number,
  ) {
    super('oauth_page_error', `${title}: ${detail}`, PAGE_KIND[status]);
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
