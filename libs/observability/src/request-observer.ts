import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from './metrics';

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What the credential guard put on the request, read by shape (this library sees no credential types). */
interface PrincipalShape {
  kind?: string;
  tokenId?: string;
  apiKeyId?: string;
  scimTokenId?: string;
  userId?: string;
  projectId?: string;
}

/** One request as the log line shows it: names and ids only, never a header value, query or body. */
export interface RequestLogLine {
  msg: 'request';
  requestId: string;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  credentialKind: string | null;
  credentialId: string | null;
  projectId: string | null;
}

/**
 * Express middleware, first in the chain: gives each request an id (a valid incoming
 * `X-Request-Id`, else a new UUID) echoed in the response's `X-Request-Id`; when the answer is
 * sent, records it in the HTTP metrics and writes one structured log line. The route is the
 * matched route's template (`/api/organizations/:orgId/projects`), or `unmatched`: never the
 * raw path, whose ids and query would grow the metric series and could carry secrets. Without a
 * `log` (the log level leaves requests out) only the metrics are recorded.
 */
export function observeRequests(metrics: Metrics, log: ((line: RequestLogLine) => void) | undefined) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    (req as Request & { requestId?: string }).requestId = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const finish = () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplate(req);
      const status = res.headersSent ? res.statusCode : 499;
      metrics.recordHttp(req.method, route, status, seconds);
      log?.(requestLine(req, requestId, route, status, seconds));
    };
    // A response always ends with 'close' (after 'finish' when it was sent, alone when the client went away).
    res.on('close', finish);
    next();
  };
}

const ROUTE_TEMPLATE = Symbol('route template');

/** Labels a request served ahead of the router (the MCP endpoint's own route) with its route's template. */
export function setRouteTemplate(req: Request, template: string): void {
  (req as Request & { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE] = template;
}

export function routeTemplate(req: Request): string {
  const set = (req as Request & { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE];
  if (set !== undefined) return set;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl ?? ''}${path}` : 'unmatched';
}

function requestLine(req: Request, requestId: string, route: string, status: number, seconds: number): RequestLogLine {
  const p = (req as Request & { principal?: PrincipalShape }).principal;
  const credentialId = p?.kind === 'agent' ? p.tokenId : p?.kind === 'api_key' ? p.apiKeyId : p?.kind === 'session' ? p.userId : p?.kind === 'scim' ? p.scimTokenId : undefined;
  return {
    msg: 'request',
    requestId,
    method: req.method,
    route,
    status,
    durationMs: Math.round(seconds * 10_000) / 10,
    credentialKind: p?.kind ?? null,
    credentialId: credentialId ?? null,
    projectId: p?.projectId ?? null,
  };
}
