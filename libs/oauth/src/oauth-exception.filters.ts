import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, type ErrorKind, HTTP_STATUS_OF_KIND, retryAfterOf } from '@app/common';
import { domainErrorPage, sendDomainErrorPage } from '@app/web';
import { OAuthError, type OAuthErrorCode, OAuthPageError } from './oauth.errors';
import { errorPage } from './views/error.view';

/** The RFC 6749 §5.2 code of a domain error that is not already an OAuth error. */
const OAUTH_CODE_OF_KIND: Readonly<Record<ErrorKind, OAuthErrorCode>> = {
  invalid_input: 'invalid_request',
  unauthenticated: 'invalid_client',
  forbidden: 'unauthorized_client',
  not_found: 'invalid_request',
  conflict: 'invalid_request',
  gone: 'invalid_grant',
  too_large: 'invalid_request',
  rate_limited: 'temporarily_unavailable',
  unavailable: 'temporarily_unavailable',
};

const BASIC_CHALLENGE = 'Basic realm="agent-gateway", charset="UTF-8"';

/**
 * The OAuth transport's filter: every domain error of the JSON OAuth endpoints (registration,
 * token, revocation) answers an RFC 6749 §5.2 / RFC 7591 §3.2.2 body `{error,
 * error_description}` with the status of its kind, never cached.
 */
@Catch(DomainError)
export class OAuthErrorFilter implements ExceptionFilter {
  catch(exception: DomainError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const oauth = exception instanceof OAuthError ? exception : undefined;
    res.status(HTTP_STATUS_OF_KIND[exception.kind]);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    const retryAfter = retryAfterOf(exception);
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    if (oauth?.basicChallenge) res.setHeader('WWW-Authenticate', BASIC_CHALLENGE);
    res.json({ error: oauth?.error ?? OAUTH_CODE_OF_KIND[exception.kind], error_description: exception.message });
  }
}

/**
 * The pages' filter: the HTML error page of the browser steps (authorize, consent, login), never
 * a redirect. Another domain error (the database unavailable: 503 with `Retry-After`) gets the
 * shared error page of `@app/web`.
 */
@Catch(DomainError)
export class OAuthPageErrorFilter implements ExceptionFilter {
  catch(exception: DomainError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const document = exception instanceof OAuthPageError ? errorPage(exception.title, exception.detail) : domainErrorPage(exception);
    sendDomainErrorPage(res, exception, document);
  }
}
