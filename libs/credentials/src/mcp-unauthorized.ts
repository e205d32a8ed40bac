import type { Response } from 'express';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';

/** Why the MCP endpoint answers 401. */
export type McpUnauthorizedReason = 'missing' | 'invalid' | 'unrecognised_agent_token';

/**
 * The one 401 of the MCP endpoint (seed, Errors). `missing`: no credential at all, so the
 * challenge carries no `error` (RFC 6750 §3.1); `invalid`: any credential that is not a live
 * agent token; `unrecognised_agent_token`: a `dga_` token that is not live (unknown, revoked,
 * expired or mistyped): the same challenge as `invalid`, and the body adds one sentence saying so. An expected answer, never logged with a stack, so none is captured; and since it
 * holds nothing of the request, the two refusals are made once (`missing`, `invalid`) and
 * thrown for every refused request: a client retrying with a dead token costs no new error.
 */
export class McpUnauthorizedException extends Error {
  static readonly missing = Object.freeze(new McpUnauthorizedException('missing'));
  static readonly invalid = Object.freeze(new McpUnauthorizedException('invalid'));
  static readonly unrecognisedAgentToken = Object.freeze(new McpUnauthorizedException('unrecognised_agent_token'));

  private constructor(readonly reason: McpUnauthorizedReason) {
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

/** The sentence added for a `dga_` token that is not live, so its holder knows which case they are in. */
export const MCP_UNRECOGNISED_AGENT_TOKEN_SENTENCE = 'This agent token was not recognised (revoked, expired or mistyped).';

export function mcpUnauthorizedBody(reason: McpUnauthorizedReason = 'invalid') {
  const message = reason === 'unrecognised_agent_token' ? `${MCP_UNAUTHORIZED_MESSAGE} ${MCP_UNRECOGNISED_AGENT_TOKEN_SENTENCE}` : MCP_UNAUTHORIZED_MESSAGE;
  return { message, error: 'Unauthorized', statusCode: 401 };
}

/** What a new token should ask for (MCP 2025-11-25): the agent permission catalogue, in catalogue order (SPEC §8). */
export const MCP_CHALLENGE_SCOPE = AGENT_PERMISSION_NAMES.join(' ');

export function mcpChallenge(reason: McpUnauthorizedReason, resourceMetadataUrl: string): string {
  return reason === 'missing'
    ? `Bearer scope="${MCP_CHALLENGE_SCOPE}", resource_metadata="${resourceMetadataUrl}"`
    : `Bearer error="invalid_token", scope="${MCP_CHALLENGE_SCOPE}", resource_metadata="${resourceMetadataUrl}"`;
}

/** The bodies, serialised once: every 401 of a reason sends the same bytes. */
const BODY = JSON.stringify(mcpUnauthorizedBody());
const BODY_LENGTH = String(Buffer.byteLength(BODY));
const UNRECOGNISED_BODY = JSON.stringify(mcpUnauthorizedBody('unrecognised_agent_token'));
const UNRECOGNISED_BODY_LENGTH = String(Buffer.byteLength(UNRECOGNISED_BODY));
/** The two challenges of the last resource metadata URL asked for (one per application). */
let challenges: { url: string; missing: string; invalid: string } | undefined;

/**
 * Writes the MCP 401. The only place its header and body are produced. Written as Express's
 * `res.json` would write it (`Content-Type: application/json; charset=utf-8`, the length), from
 * strings made once: a client retrying with a dead token costs no serialisation.
 */
export function sendMcpUnauthorized(res: Response, reason: McpUnauthorizedReason, resourceMetadataUrl: string): void {
  if (challenges?.url !== resourceMetadataUrl) {
    challenges = { url: resourceMetadataUrl, missing: mcpChallenge('missing', resourceMetadataUrl), invalid: mcpChallenge('invalid', resourceMetadataUrl) };
  }
  res.statusCode = 401;
  const unrecognised = reason === 'unrecognised_agent_token';
  res.setHeader('WWW-Authenticate', reason === 'missing' ? challenges.missing : challenges.invalid);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', unrecognised ? UNRECOGNISED_BODY_LENGTH : BODY_LENGTH);
  res.end(res.req?.method === 'HEAD' ? undefined : unrecognised ? UNRECOGNISED_BODY : BODY);
}
