import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { DomainError, isUuid } from '@app/common';
import { OrganizationNotFound, PageSignInRequired } from '@app/credentials';
import { SessionReachError } from '@app/people';
import { domainErrorPage, html, page, sendDomainErrorPage, sendPage, sendRedirect } from '@app/web';

/**
 * The dashboard's filter (the pages' transport): no session → sign in and come back; a session
 * that does not open the organisation (`SessionReachError`) → a 403 page linking to the sign-in it needs; a refusal
 * (403, 404, a CSRF failure) or a domain error → an HTML page with its status; anything else →
 * a generic 500 page with an id that is logged, leaking nothing.
 */
@Catch()
export class DashboardPageFilter implements ExceptionFilter {
  private readonly logger = new Logger('Dashboard');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    if (exception instanceof PageSignInRequired) {
      sendRedirect(res, 303, `/login?next=${encodeURIComponent(exception.returnTo)}`);
      return;
    }
    if (exception instanceof SessionReachError && exception.refusal === 'session_predates_membership') {
      // An older session than the membership: the sign-in page, as for no session (SPEC §10).
      sendRedirect(res, 303, exception.signInHref);
      return;
    }
    if (exception instanceof SessionReachError) {
      const orgId = (host.switchToHttp().getRequest<{ params?: Record<string, unknown> }>().params ?? {}).orgId;
      sendPage(res, 403, sessionReachPage(exception, isUuid(orgId) ? orgId : null));
      return;
    }
    if (exception instanceof DomainError) {
      sendDomainErrorPage(res, exception, domainErrorPage(exception));
      return;
    }
    if (exception instanceof OrganizationNotFound) {
      sendPage(
        res,
        404,
        errorPage(
          'Organisation not found',
          'This organisation does not exist, or you are not one of its members. If someone invited you, open the link of the invitation; otherwise ask one of its admins to invite you.',
        ),
      );
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const title = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'This request could not be handled';
      sendPage(res, status, errorPage(title, messageOf(exception)));
      return;
    }
    const id = randomUUID();
    this.logger.error(`unexpected error ${id}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`);
    sendPage(res, 500, errorPage('Something went wrong', `The error was logged as ${id}. Please try again.`));
  }
}

function messageOf(exception: HttpException): string {
  const body = exception.getResponse();
  const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : body;
  return Array.isArray(message) ? message.join('; ') : String(message ?? exception.message);
}

/** A member's session that does not open the organisation: how to sign in so that it does. */
function sessionReachPage(error: SessionReachError, orgId: string | null) {
  const sso = error.refusal === 'sso_required';
  const title = sso ? 'Single sign-on required' : 'Sign in again to open this organisation';
  return page(
    title,
    html`<div class="card" role="alert" aria-labelledby="error-title">
<h1 id="error-title">${title}</h1>
<p>${sso
      ? 'This organisation requires single sign-on through its identity provider. Sign in with single sign-on to open it; your other organisations are not affected.'
      : 'This session began before your current membership of this organisation. Sign in again to open it.'}</p>
<p><a href="${error.signInHref}">${sso ? 'Sign in with single sign-on' : 'Sign in again'}</a></p>
${sso
      ? html`<p>Who can switch it off, if you cannot sign in through the identity provider: an admin of this organisation signed in with single sign-on (on its Single sign-on page), or an operator of this deployment with <code>npm run cli -- sso-require-off --organization ${orgId ?? '<organisation id>'}</code>.</p>`
      : ''}
<p><a href="/">Back to the dashboard</a></p>
</div>`,
  );
}

function errorPage(title: string, message: string) {
  return page(
    title,
    html`<div class="card" role="alert" aria-labelledby="error-title">
<h1 id="error-title">${title}</h1>
<p>${message}</p>
<p><a href="/">Back to the dashboard</a></p>
</div>`,
  );
}
