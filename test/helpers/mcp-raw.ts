import { LEGACY_VERSIONS, MODERN_VERSION } from './mcp';

/** Raw MCP requests, as an MCP client puts them on the wire, without the client's session logic. */
export type Generation = 'legacy' | 'modern';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };

/** One raw `tools/call` as an MCP client sends it, in either protocol generation. */
export async function callTool(
  baseUrl: string,
  token: string,
  generation: Generation,
  name: string,
  args: Record<string, unknown>,
  { id = 1, batch = false }: { id?: number; batch?: boolean } = {},
) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
  };
  let params: Record<string, unknown> = { name, arguments: args };
  if (generation === 'modern') {
    Object.assign(headers, { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': name });
    params = { ...params, _meta: META };
  } else {
    headers['mcp-protocol-version'] = LEGACY_VERSIONS[LEGACY_VERSIONS.length - 1];
  }
  const message = { jsonrpc: '2.0', id, method: 'tools/call', params };
  // A 2025 batch of one goes the SDK's generic path; a single request, the direct exchange.
  const res = await fetch(`${baseUrl}/api/mcp`, { method: 'POST', headers, body: JSON.stringify(batch ? [message] : message) });
  const text = await res.text();
  // An event stream may open with comment lines (`: keepalive` while a slow answer is on its way).
  const stream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream') || text.startsWith('event:');
  const data = stream ? text.split('\n').find((l) => l.startsWith('data: '))!.slice(6) : text;
  const parsed: unknown = JSON.parse(data);
  return { status: res.status, body: (Array.isArray(parsed) ? parsed[0] : parsed) as { id: unknown; result?: { structuredContent?: any; isError?: boolean }; error?: unknown } };
}

/**
 * One raw modern `tools/list` with this token, as a machine sends it: in `Authorization` or,
 * as some clients do, in `x-agent-token`. The response as fetch gives it, its body unread.
 */
export function listToolsRaw(baseUrl: string, token: string, header: 'authorization' | 'x-agent-token' = 'authorization'): Promise<Response> {
  return fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tools/list',
      ...(header === 'authorization' ? { authorization: `Bearer ${token}` } : { 'x-agent-token': token }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }),
  });
}
