import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, HTTP_STATUS_OF_KIND, retryAfterOf } from '@app/common';
import { html } from './html';
import { type HtmlPage, page, sendPage } from './page';

/** The page shown for a domain error that the page itself did not answer (the database unavailable, say). */
export function domainErrorPage(error: DomainError): HtmlPage {
  const title = error.kind === 'unavailable' ? 'Temporarily unavailable' : 'Something went wrong';
  const hint = error.kind === 'unavailable' ? 'Please try again in a few seconds.' : 'Please go back and try again.';
  return page(
    title,
    html`<div class="card" role="alert" aria-labelledby="error-title">
<h1 id="error-title">${title}</h1>
<p>${error.message}</p>
<p class="muted">${hint}</p>
</div>`,
  );
}

/**
 * The HTML pages' filter: a domain error escaping a page's handler is answered as an HTML page
 * with its kind's status (and `Retry-After` when it has one), never as JSON.
 */
@Catch(DomainError)
export class PageErrorFilter implements ExceptionFilter {
  catch(exception: DomainError, host: ArgumentsHost): void {
    sendDomainErrorPage(host.switchToHttp().getResponse<Response>(), exception, domainErrorPage(exception));
  }
}

/** Sends `document` as the answer to `error`: its kind's status, `Retry-After` when it says when to retry. */
export function sendDomainErrorPage(res: Response, error: DomainError, document: HtmlPage): void {
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  sendPage(res, HTTP_STATUS_OF_KIND[error.kind], document);
}
