import type { Response } from 'express';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';

/**
 * The one 401 of the MCP endpoint (seed, Errors). `missing`: no credential at all, so the
 * challenge carries no `error` (RFC 6750 §3.1); `invalid`: any credential that is not a live
 * agent token. An expected answer, never logged with a stack, so none is captured; and since it
 * holds nothing of the request, the two refusals are made once (`missing`, `invalid`) and
 * thrown for every refused request: a client retrying with a dead token costs no new error.
 */
export class McpUnauthorizedException extends Error {
  static readonly missing = Object.freeze(new McpUnauthorizedException('missing'));
  static readonly invalid = Object.freeze(new McpUnauthorizedException('invalid'));

  private constructor(readonly reason: 'missing' | 'invalid') {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super('agent token required');
    Error.stackTraceLimit = limit;
    this.name = 'McpUnauthorizedException';
  }
}

export const MCP_UNAUTHORIZED_MESSAGE =
  'Capabilities require an agent project token, sent as a Bearer dga_ token (Authorization: Bearer dga_...) ' +
  'or in the x-agent-token header. A session JWT or an API key authenticates the transport but opens no capability.';

export function mcpUnauthorizedBody() {
  return { message: MCP_UNAUTHORIZED_MESSAGE, error: 'Unauthorized', statusCode: 401 };
}

/** What a new token should ask for (MCP 2025-11-25): the agent permission catalogue, in catalogue order (SPEC §8). */
export const MCP_CHALLENGE_SCOPE = AGENT_PERMISSION_NAMES.join(' ');

export function mcpChallenge(reason: 'missing' | 'invalid', resourceMetadataUrl: string): string {
  return reason === 'missing'
    ? `Bearer scope="${MCP_CHALLENGE_SCOPE}", resource_metadata="${resourceMetadataUrl}"`
    : `Bearer error="invalid_token", scope="${MCP_CHALLENGE_SCOPE}", resource_metadata="${resourceMetadataUrl}"`;
}

/** The body, serialised once: every 401 sends the same bytes. */
const BODY = JSON.stringify(mcpUnauthorizedBody());
const BODY_LENGTH = String(Buffer.byteLength(BODY));
/** The two challenges of the last resource metadata URL asked for (one per application). */
let challenges: { url: string; missing: string; invalid: string } | undefined;

/**
 * Writes the MCP 401. The only place its header and body are produced. Written as Express's
 * `res.json` would write it (`Content-Type: application/json; charset=utf-8`, the length), from
 * strings made once: a client retrying with a dead token costs no serialisation.
 */
export function sendMcpUnauthorized(res: Response, reason: 'missing' | 'invalid', resourceMetadataUrl: string): void {
  if (challenges?.url !== resourceMetadataUrl) {
    challenges = { url: resourceMetadataUrl, missing: mcpChallenge('missing', resourceMetadataUrl), invalid: mcpChallenge('invalid', resourceMetadataUrl) };
  }
  res.statusCode = 401;
  res.setHeader('WWW-Authenticate', challenges[reason]);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', BODY_LENGTH);
  res.end(res.req?.method === 'HEAD' ? undefined : BODY);
}
