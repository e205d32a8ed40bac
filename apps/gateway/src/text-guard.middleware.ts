import type { NextFunction, Request, Response } from 'express';
import { findUnstorableText, isUnstorableText } from '@app/common';
import { echoableId, JSON_RPC_INVALID_PARAMS, JSON_RPC_INVALID_REQUEST, jsonRpcError } from '@app/mcp';
import { errorPage } from '@app/oauth';
import { isScimPath, sendScimError } from '@app/scim';
import { sendPage } from '@app/web';
import { MCP_PATH } from './cors.middleware';

const OAUTH_JSON_PATHS = new Set(['/api/agent/oauth/token', '/api/agent/oauth/revoke', '/api/agent/oauth/register']);
const AUTHORIZE_PATH = '/api/agent/oauth/authorize';
/** A name (query parameter, field, cookie) that can be shown; anything else is not repeated. */
const SHOWABLE_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.[\]-]{0,80}$/;

/**
 * Refuses, before any guard, handler or query, a request carrying text PostgreSQL cannot store
 * as sent: a NUL character (a 500 from the database otherwise) or an unpaired UTF-16 surrogate
 * (stored as U+FFFD otherwise), anywhere in the path, the query string, the parsed body (JSON or
 * form, keys included), the cookies or the headers. Every route answers in its usual shape:
 * the MCP endpoint a JSON-RPC error (invalid params, as the SDK answers them, when the text is
 * in a request's params), the OAuth token, revocation and registration endpoints an
 * RFC 6749 error, the authorize endpoint and the HTML pages an error page, SCIM its error
 * format, REST its 400.
 */
export function textGuard(req: Request, res: Response, next: NextFunction): void {
  const found = unstorableTextIn(req);
  if (!found) return next();
  const message = `The request contains a NUL character or an unpaired UTF-16 surrogate in ${found.where}`;
  const path = req.path;
  if (path === MCP_PATH) {
    // Inside a request's params it is what the SDK answers any invalid params with: a JSON-RPC
    // -32602 error to that request (HTTP 200); anywhere else the request itself is refused (400).
    const id = echoableId(req.body);
    const inParams = id !== null && /^params\b/.test(found.bodyPath ?? '');
    res.status(inParams ? 200 : 400).setHeader('Cache-Control', 'no-store');
    res.json(jsonRpcError(id, inParams ? JSON_RPC_INVALID_PARAMS : JSON_RPC_INVALID_REQUEST, message));
    return;
  }
  if (OAUTH_JSON_PATHS.has(path)) {
    res.status(400).setHeader('Cache-Control', 'no-store').setHeader('Pragma', 'no-cache');
    res.json({ error: path.endsWith('/register') ? 'invalid_client_metadata' : 'invalid_request', error_description: message });
    return;
  }
  if (isScimPath(path)) return sendScimError(res, 400, message, 'invalidValue');
  if (path === AUTHORIZE_PATH || !(path.startsWith('/api/') || path.startsWith('/.well-known/') || path.startsWith('/health/'))) {
    sendPage(res, 400, errorPage('Invalid request', `${message}. Start again from the application or the link you followed.`));
    return;
  }
  res.status(400).json({ statusCode: 400, message, error: 'Bad Request' });
}

/** Where the first unstorable text is ("the query parameter client_id", …), or undefined. */
function unstorableTextIn(req: Request): { where: string; bodyPath?: string } | undefined {
  const url = req.originalUrl;
  const queryAt = url.indexOf('?');
  if (/%00/i.test(queryAt < 0 ? url : url.slice(0, queryAt)) || isUnstorableText(req.path)) return { where: 'the path' };
  // Without a query string there are no query parameters to parse.
  const query = queryAt < 0 ? undefined : findUnstorableText(req.query);
  if (query) return { where: named('query parameter', query.path) };
  const body = findUnstorableText(req.body);
  if (body) return { where: named('body field', body.path), bodyPath: body.path };
  const cookies = findUnstorableText(req.cookies);
  if (cookies) return { where: named('cookie', cookies.path) };
  // Every value as received (names and values alternate), repeated headers one by one.
  const raw = req.rawHeaders;
  for (let i = 1; i < raw.length; i += 2) {
    if (isUnstorableText(raw[i]!)) return { where: `the ${raw[i - 1]!.toLowerCase()} header` };
  }
  return undefined;
}

function named(kind: string, path: string): string {
  return SHOWABLE_NAME_RE.test(path) ? `the ${kind} ${path}` : `a ${kind}`;
}
