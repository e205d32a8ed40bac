import { Logger } from '@nestjs/common';
import { CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import { DomainError, retryAfterOf } from '@app/common';
import { MCP_SERVER_ERROR } from './json-rpc';

const logger = new Logger('Capabilities');

/**
 * What a failed capability call answers (docs/mcp.md, "Errors from capabilities"):
 * - a `DomainError` of kind `invalid_input` (input the schema could not rule out, e.g. a
 *   malformed cursor) → JSON-RPC `-32602` invalid params, like a schema violation;
 * - any other `DomainError` (not found, conflict, gone, …) → a tool error (`isError: true`)
 *   whose text is the error's message and whose `_meta` carries its stable code, so the agent
 *   reads what went wrong and can act on it;
 * - a `DomainError` of kind `unavailable` (the database does not answer): the call did not run.
 *   The request as a whole is answered HTTP 503 with `Retry-After` (`McpService`, like every
 *   other outage answer); only inside a batch where other calls did run is it this message's
 *   JSON-RPC error `-32000` carrying its code and `retryAfterSeconds`;
 * - a `ProtocolError` → passed through as the JSON-RPC error it names;
 * - anything else → logged with a reference id and answered as a generic tool error: never
 *   a stack, SQL or secret, and never an HTTP 500.
 */
export function capabilityFailure(error: unknown, toolName: string): CallToolResult {
  if (error instanceof ProtocolError) throw error;
  if (error instanceof DomainError) {
    if (error.kind === 'unavailable') {
      // Not the tool's answer: the call could not run. A JSON-RPC error the client may retry.
      throw new ProtocolError(MCP_SERVER_ERROR, error.message, { code: error.code, retryAfterSeconds: retryAfterOf(error) });
    }
    if (error.kind === 'invalid_input') {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for tool ${toolName}: ${error.message}`, {
        code: error.code,
      });
    }
    return {
      content: [{ type: 'text', text: error.message }],
      isError: true,
      _meta: { 'agent-gateway/error': { code: error.code } },
    };
  }
  const reference = randomUUID();
  logger.error(
    `capability ${toolName} failed (reference ${reference}): ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    error instanceof Error ? error.stack : undefined,
  );
  return {
    content: [{ type: 'text', text: `The tool ${toolName} failed because of an internal error (reference ${reference}).` }],
    isError: true,
    _meta: { 'agent-gateway/error': { code: 'internal_error', reference } },
  };
}
