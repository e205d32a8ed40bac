import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { sendPage } from '@app/web';
import { OAuthError, OAuthPageError } from './oauth.errors';
import { errorPage } from './views/error.view';

/** RFC 6749 §5.2 error bodies for the JSON OAuth endpoints, never cached. */
@Catch(OAuthError)
export class OAuthErrorFilter implements ExceptionFilter {
  catch(exception: OAuthError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    res.status(exception.status);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    for (const [name, value] of Object.entries(exception.headers)) res.setHeader(name, value);
    res.json(exception.toJSON());
  }
}

/** The HTML error page of the browser steps (authorize, consent, login): never a redirect. */
@Catch(OAuthPageError)
export class OAuthPageErrorFilter implements ExceptionFilter {
  catch(exception: OAuthPageError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    sendPage(res, exception.status, errorPage(exception.title, exception.detail));
  }
}
