import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { DomainError, HTTP_STATUS_OF_KIND, restErrorBody, restFieldsOf, retryAfterOf } from '@app/common';
import { McpUnauthorizedException, sendMcpUnauthorized } from '@app/credentials';
import { isPageRequest, NotFoundPage } from '@app/dashboard';
import { sendPage } from '@app/web';
import { allowedMethods } from './method-not-allowed';

/**
 * The HTTP/REST transport's filter (global). REST errors keep NestJS's shape `{statusCode,
 * message, error}`; a domain error answers the status of its kind and adds its stable `code`
 * (and `Retry-After` when it is rate limited). Anything unexpected is logged with an id and
 * answered with a generic 500 that leaks no stack, SQL or secret.
 */
@Injectable()
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  constructor(
    private readonly config: AppConfig,
    private readonly notFoundPage: NotFoundPage,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    this.answer(exception, ctx.getRequest<Request>(), ctx.getResponse<Response>());
  }

  /** The answer to `exception`, for routes served outside Nest's router too (the MCP endpoint's own). */
  answer(exception: unknown, req: Request, res: Response): void {
    if (res.headersSent) {
      this.logger.warn(`error after the response started on ${req.method} ${req.path}: ${describe(exception)}`);
      if (!res.writableEnded) res.end();
      return;
    }
    if (exception instanceof McpUnauthorizedException) {
      sendMcpUnauthorized(res, exception.reason, this.config.protectedResourceMetadataUrl);
      return;
    }
    if (exception instanceof DomainError) {
      const status = HTTP_STATUS_OF_KIND[exception.kind];
      const retryAfter = retryAfterOf(exception);
      if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
      res.status(status).json({ ...restErrorBody(status, exception.message, exception.code), ...restFieldsOf(exception) });
      return;
    }
    const allow = exception instanceof NotFoundException ? allowedMethods(req) : [];
    if (allow.length) {
      res.setHeader('Allow', allow.join(', '));
      res.status(405).json({ statusCode: 405, message: `This route accepts ${allow.join(', ')}, not ${req.method}`, error: 'Method Not Allowed' });
      return;
    }
    if (exception instanceof NotFoundException && isPageRequest(req)) {
      // A mistyped page address: a page with the navigation, not the API's JSON.
      void this.notFoundPage.render(req).then(
        (document) => (res.headersSent ? undefined : sendPage(res, 404, document)),
        () => (res.headersSent ? undefined : res.status(404).json(restErrorBody(404, 'Not Found'))),
      );
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      res
        .status(status)
        .json(typeof body === 'string' ? restErrorBody(status, body) : body);
      return;
    }
    const errorId = randomUUID();
    this.logger.error(`unhandled error ${errorId} on ${req.method} ${req.path}: ${describe(exception)}`,
      exception instanceof Error ? exception.stack : undefined);
    res.status(500).json(restErrorBody(500, `Internal server error (reference ${errorId})`));
  }
}

function describe(exception: unknown): string {
  return exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception);
}
