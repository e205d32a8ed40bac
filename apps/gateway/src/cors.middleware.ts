import type { NextFunction, Request, Response } from 'express';
import { AppConfig } from '@app/config';

export const MCP_PATH = '/api/mcp';

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

/**
 * Cross-origin policy by path, decided before any route runs:
 * - discovery documents and the cookie-less OAuth endpoints: any origin;
 * - `/api/mcp`: only `MCP_ALLOWED_ORIGINS`; a request whose `Origin` is not allowed gets 403
 *   (DNS-rebinding protection), with or without a credential;
 * - everything else (the REST surface, HTML pages): no CORS grant at all.
 */
export function corsPolicy(config: AppConfig) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const path = req.path;
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;

    if (path === MCP_PATH || path === `${MCP_PATH}/`) {
      if (origin !== undefined) {
        if (!config.isOriginAllowed(origin)) {
          res.status(403).json({ statusCode: 403, message: `Origin ${origin} is not allowed to call ${MCP_PATH}`, error: 'Forbidden' });
          return;
        }
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Access-Control-Expose-Headers', MCP_EXPOSE_HEADERS);
        res.setHeader('Vary', 'Origin');
      }
      if (preflight) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', MCP_ALLOW_HEADERS);
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
      next();
      return;
    }

    if (path.startsWith('/.well-known/') || PUBLIC_OAUTH_PATHS.has(path)) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate');
      if (preflight) {
        res.setHeader('Access-Control-Allow-Methods', path.startsWith('/.well-known/') ? 'GET, OPTIONS' : 'POST, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Accept, MCP-Protocol-Version');
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
    }
    next();
  };
}
