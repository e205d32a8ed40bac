import { CallHandler, ExecutionContext, HttpException, Injectable, NestInterceptor, type Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import type { RouteAwareEnhancer } from './mcp-route-enhancers';

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * A route whose body is a validated DTO takes JSON only: a body in another media type (curl's
 * `-d` sends a form) is answered 415 naming `Content-Type: application/json`, instead of being
 * parsed as a form whose one "property" is the whole JSON text, password included, and refused
 * with that text in the message. Routes that take forms (the pages, the OAuth token and
 * revocation endpoints) declare their body as a plain record and are left alone.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor, RouteAwareEnhancer {
  private readonly jsonRoutes = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const req = context.switchToHttp().getRequest<Request>();
      if (hasBody(req) && !req.is(JSON_TYPES) && this.takesJson(context)) {
        throw new HttpException(
          {
            statusCode: 415,
            message: 'This route takes a JSON body: send it with Content-Type: application/json',
            error: 'Unsupported Media Type',
          },
          415,
        );
      }
    }
    return next.handle();
  }

  /** Whether this interceptor does anything on `handler` (a route whose body is a DTO); read once at start by the MCP endpoint's own route. */
  appliesTo(controller: Type, handler: (...args: never[]) => unknown): boolean {
    let known = this.jsonRoutes.get(handler);
    if (known === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<string, { index: number }>;
      const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler.name) ?? []) as unknown[];
      known = Object.entries(args).some(([key, { index }]) => {
        if (Number(key.split(':')[0]) !== RouteParamtypes.BODY) return false;
        const type = types[index];
        return typeof type === 'function' && type !== Object && type !== Array && type !== String;
      });
      this.jsonRoutes.set(handler, known);
    }
    return known;
  }

  private takesJson(context: ExecutionContext): boolean {
    return this.appliesTo(context.getClass(), context.getHandler() as (...args: never[]) => unknown);
  }
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
