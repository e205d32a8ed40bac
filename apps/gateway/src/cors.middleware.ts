import type { CorsOptions, CorsOptionsDelegate } from '@nestjs/common/interfaces/external/cors-options.interface';
import type { NextFunction, Request, Response } from 'express';
import { restErrorBody } from '@app/common';
import { AppConfig } from '@app/config';

export const MCP_PATH = '/api/mcp';

/** SPEC §3: what a browser MCP client may send to and read from `/api/mcp`. */
const MCP_ALLOW_HEADERS = [
  'Authorization',
  'x-agent-token',
  'Content-Type',
  'Accept',
  'MCP-Protocol-Version',
  'Mcp-Session-Id',
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
].join(', ');
const MCP_EXPOSE_HEADERS = ['WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version'].join(', ');

/** Endpoints a browser-based MCP client calls without cookies: open to any origin. */
const PUBLIC_OAUTH_PATHS = new Set(['/api/agent/oauth/token', '/api/agent/oauth/register', '/api/agent/oauth/revoke']);

const PREFLIGHT = { maxAge: 600, optionsSuccessStatus: 204 } as const;
const NO_CORS: CorsOptions = { origin: false };

export function isMcpPath(path: string): boolean {
  return path === MCP_PATH || path === `${MCP_PATH}/`;
}

/**
 * The per-path options of Nest's `enableCors` (the `cors` package), decided before any route:
 * - discovery documents and the cookie-less OAuth endpoints: any origin;
 * - `/api/mcp`: only `MCP_ALLOWED_ORIGINS` (a disallowed one never gets here: `mcpOriginCheck`);
 * - everything else (the REST surface, HTML pages): no CORS grant at all.
 * An `OPTIONS` without `Access-Control-Request-Method` is not a preflight: it goes on to the
 * routes (with the grant's headers) instead of being answered here.
 */
export function corsOptionsDelegate(config: AppConfig): CorsOptionsDelegate<Request> {
  return (req, callback) => {
    const path = req.path;
    const preflightContinue = req.method === 'OPTIONS' && req.headers['access-control-request-method'] === undefined;
    if (isMcpPath(path)) {
      const origin = req.headers.origin;
      callback(null, {
        // No Origin (not a browser): `true` reflects none, so nothing is granted, but a
        // preflight is still answered.
        origin: origin === undefined ? true : config.isOriginAllowed(origin) ? origin : false,
        methods: 'GET, POST, DELETE, OPTIONS',
        allowedHeaders: MCP_ALLOW_HEADERS,
        exposedHeaders: MCP_EXPOSE_HEADERS,
        preflightContinue,
        ...PREFLIGHT,
      });
      return;
    }
    const wellKnown = path.startsWith('/.well-known/');
    if (wellKnown || PUBLIC_OAUTH_PATHS.has(path)) {
      callback(null, {
        origin: '*',
        methods: wellKnown ? 'GET, OPTIONS' : 'POST, OPTIONS',
        allowedHeaders: 'Authorization, Content-Type, Accept, MCP-Protocol-Version',
        exposedHeaders: 'WWW-Authenticate',
        preflightContinue,
        ...PREFLIGHT,
      });
      return;
    }
    callback(null, NO_CORS);
  };
}

/**
 * DNS-rebinding protection on `/api/mcp`, before CORS and anything else: a request whose
 * `Origin` is not in `MCP_ALLOWED_ORIGINS` gets 403, with or without a credential. Nest's CORS
 * only withholds its headers; it does not refuse.
 */
export function mcpOriginCheck(config: AppConfig) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (origin === undefined || !isMcpPath(req.path) || config.isOriginAllowed(origin)) return next();
    res.status(403).json(restErrorBody(403, `Origin ${origin} is not allowed to call ${MCP_PATH}`));
  };
}
