import type { Response } from 'express';
import { AGENT_PERMISSION_NAMES } from './permissions';

/**
 * The one 401 of the MCP endpoint (seed, Errors). `missing`: no credential at all, so the
 * challenge carries no `error` (RFC 6750 §3.1); `invalid`: any credential that is not a live
 * agent token.
 */
export class McpUnauthorizedException extends Error {
  constructor(readonly reason: 'missing' | 'invalid') {
    super('agent token required');
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

/** Writes the MCP 401. The only place its header and body are produced. */
export function sendMcpUnauthorized(res: Response, reason: 'missing' | 'invalid', resourceMetadataUrl: string): void {
  res
    .status(401)
    .setHeader('WWW-Authenticate', mcpChallenge(reason, resourceMetadataUrl))
    .setHeader('Cache-Control', 'no-store')
    .json(mcpUnauthorizedBody());
}
