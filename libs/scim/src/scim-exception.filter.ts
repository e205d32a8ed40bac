import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { DomainError, HTTP_STATUS_OF_KIND, retryAfterOf } from '@app/common';
import { ScimError, type ScimType } from './scim.errors';
import { SCIM_CONTENT_TYPE, SCIM_SCHEMAS } from './scim-schemas';

/** The RFC 7644 §3.12 error body: `status` is a string. */
export function scimErrorBody(status: number, detail: string, scimType?: ScimType) {
  return { schemas: [SCIM_SCHEMAS.error], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

/** Whether a request path is under the SCIM endpoint (its errors answer in the SCIM format). */
export function isScimPath(path: string): boolean {
  return path === '/scim/v2' || path.startsWith('/scim/v2/');
}

/** Writes a SCIM error answer. */
export function sendScimError(res: Response, status: number, detail: string, scimType?: ScimType): void {
  res.status(status).setHeader('Content-Type', SCIM_CONTENT_TYPE);
  res.setHeader('Cache-Control', 'no-store');
  res.send(JSON.stringify(scimErrorBody(status, detail, scimType)));
}

/**
 * The SCIM transport's filter (`/scim/v2`): every refusal in the RFC 7644 error format, the
 * guard's 401 included. A domain error answers its kind's status (a conflict 409, with
 * `uniqueness` when a userName is taken); anything unexpected is logged with an id and answered
 * a generic 500 in the same format.
 */
@Catch()
export class ScimExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ScimExceptions');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    if (exception instanceof DomainError) {
      const status = HTTP_STATUS_OF_KIND[exception.kind];
      const retryAfter = retryAfterOf(exception);
      if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
      const scimType = exception instanceof ScimError ? exception.scimType : undefined;
      if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
      sendScimError(res, status, exception.message, scimType);
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      const message = typeof body === 'string' ? body : (body as { message?: unknown }).message;
      const detail = Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : exception.message;
      if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
      sendScimError(res, status, detail);
      return;
    }
    const errorId = randomUUID();
    this.logger.error(`unhandled error ${errorId} on ${req.method} ${req.path}: ${exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception)}`, exception instanceof Error ? exception.stack : undefined);
    sendScimError(res, 500, `Internal server error (reference ${errorId})`);
  }
}
