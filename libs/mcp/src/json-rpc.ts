import { ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * JSON-RPC error codes the gateway itself answers with (the SDK answers the rest). The standard
 * ones and MCP's come from the SDK's `ProtocolErrorCode`; the two below are server-defined
 * (JSON-RPC reserves -32000…-32099 for them) and the SDK exports no name for them.
 */
export const JSON_RPC_PARSE_ERROR = ProtocolErrorCode.ParseError;
export const JSON_RPC_INVALID_REQUEST = ProtocolErrorCode.InvalidRequest;
export const JSON_RPC_INVALID_PARAMS = ProtocolErrorCode.InvalidParams;
export const MCP_UNSUPPORTED_PROTOCOL_VERSION = ProtocolErrorCode.UnsupportedProtocolVersion;
/** Server-defined: the token lacks the tool's permission. */
export const MCP_INSUFFICIENT_SCOPE = -32003;
/** Server-defined, the code the SDK's own transport uses for HTTP-level refusals (405, 415). */
export const MCP_SERVER_ERROR = -32000;

export type JsonRpcId = string | number | null;

export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data?: unknown };
}

export function jsonRpcError(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcErrorBody {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** The id to echo in an error about `body`: a single request's own id, else null. */
export function echoableId(body: unknown): JsonRpcId {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
