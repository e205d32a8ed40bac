import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { RequestOrigin } from './audit.service';

/** The caller's IP (as Express sees it, `TRUST_PROXY` aware) and user agent, for audit events. */
export function requestOrigin(req: Request): RequestOrigin {
  const userAgent = req.headers['user-agent'];
  return { ip: req.ip ?? null, userAgent: typeof userAgent === 'string' ? userAgent : null };
}

/** `requestOrigin` of the request, as a route parameter. */
export const AuditOrigin = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestOrigin =>
  requestOrigin(ctx.switchToHttp().getRequest<Request>()),
);
