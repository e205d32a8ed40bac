import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  classifyInboundRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  parseJSONRPCMessage,
  PerRequestHTTPServerTransport,
  type Server,
  type Transport,
} from '@modelcontextprotocol/server';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from './protocol-versions';

/**
 * The direct exchange: how the endpoint serves the two methods agents call all the time
 * (`tools/list`, `tools/call`) without the web-standard `Request`/`Response` round trip and the
 * stream plumbing of the SDK's generic handler, on both protocol generations. The message is
 * still classified by the SDK (`classifyInboundRequest`), validated by its JSON-RPC schemas and
 * dispatched by an SDK `Server`; the answer is the one the SDK writes, byte for byte.
 *
 * Only a request that the SDK's generic path would certainly accept is taken here; anything
 * else (`initialize`, `server/discover`, notifications, batches, a header the SDK would refuse,
 * a non-canonical `Mcp-Name`) goes to `createMcpHandler`, which answers it as it always has.
 */
type Classification = ConstructorParameters<typeof PerRequestHTTPServerTransport>[0]['classification'];

export type DirectExchange =
  | { era: 'modern'; message: JSONRPCRequest; classification: Classification }
  | { era: 'legacy'; message: JSONRPCRequest };

const DIRECT_METHODS = new Set(['tools/list', 'tools/call']);
const MODERN = new Set<string>(MODERN_PROTOCOL_VERSIONS);
const LEGACY = new Set<string>(LEGACY_PROTOCOL_VERSIONS);
/** A tool name that needs no encoding in `Mcp-Name` (so header and body compare as plain text). */
const PLAIN_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** The headers the SDK's stateless legacy transport answers with. */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

function single(value: string | string[] | undefined): string | undefined | null {
  return Array.isArray(value) ? null : value;
}

/** The direct exchange for this request, or undefined when the SDK's generic path must answer. */
export function directExchange(headers: IncomingHttpHeaders, body: unknown): DirectExchange | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string' || !DIRECT_METHODS.has(method)) return undefined;
  const version = single(headers['mcp-protocol-version']);
  const methodHeader = single(headers['mcp-method']);
  const nameHeader = single(headers['mcp-name']);
  if (version === null || methodHeader === null || nameHeader === null) return undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: version,
    mcpMethodHeader: methodHeader,
    mcpNameHeader: nameHeader,
    body,
  });
  if (route.kind === 'modern') {
    if (route.messageKind !== 'request' || !route.classification.revision || !MODERN.has(route.classification.revision)) return undefined;
    // The SDK requires the standard headers on a modern request: present, and equal to the body.
    if (version !== route.classification.revision || methodHeader !== method) return undefined;
    if (method === 'tools/call') {
      const name = params?.name;
      if (typeof name !== 'string' || !PLAIN_NAME.test(name) || nameHeader !== name) return undefined;
    } else if (nameHeader !== undefined) {
      return undefined;
    }
    return { era: 'modern', message: route.message as JSONRPCRequest, classification: route.classification };
  }
  if (route.kind !== 'legacy') return undefined;
  // The SDK's legacy transport needs both media types accepted and a version it serves.
  const accept = single(headers.accept);
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (version !== undefined && !LEGACY.has(version)) return undefined;
  let message: JSONRPCMessage;
  try {
    message = parseJSONRPCMessage(body);
  } catch {
    return undefined;
  }
  if (!('id' in message) || !('method' in message)) return undefined;
  return { era: 'legacy', message: message as JSONRPCRequest };
}

/**
 * Serves one direct exchange on `server` (a fresh instance for this request) and writes the
 * answer in one write: a JSON body for 2026-07-28 (the SDK's own single-exchange transport), the
 * single SSE event of a stateless 2025 answer otherwise. `beforeAnswer` runs once the answer is
 * known and before anything is written: what it throws replaces the answer.
 */
export async function serveDirect(
  exchange: DirectExchange,
  server: Server,
  authInfo: AuthInfo,
  res: ServerResponse,
  beforeAnswer: () => void = () => {},
): Promise<void> {
  if (exchange.era === 'modern') {
    const transport = new ModernTransport({ classification: exchange.classification }, exchange.message.id);
    await server.connect(transport);
    const outcome = await Promise.race([transport.result, transport.handleMessage(exchange.message, { authInfo })]);
    beforeAnswer();
    if (!(outcome instanceof Response)) {
      // What the SDK's transport answers for a plain result: status 200, the message as JSON.
      writeWhole(res, 200, { 'Content-Type': 'application/json' }, JSON.stringify(outcome));
      return;
    }
    const headers: Record<string, string> = {};
    outcome.headers.forEach((value, name) => (headers[name] = value));
    writeWhole(res, outcome.status, headers, await outcome.text());
    return;
  }
  const transport = new SingleAnswerTransport();
  await server.connect(transport);
  transport.onmessage?.(exchange.message, { authInfo });
  // Nothing outlives the answer: the instance holds no timer and no pending request, so it is
  // dropped rather than closed (closing builds a connection-closed error for nothing).
  const answer = await transport.answer;
  beforeAnswer();
  writeWhole(res, 200, SSE_HEADERS, `event: message\ndata: ${JSON.stringify(answer)}\n\n`);
}

/** The whole answer in one write, with its length (no chunked encoding). */
function writeWhole(res: ServerResponse, status: number, headers: Record<string, string>, text: string): void {
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The SDK's single-exchange transport, except that the plain result of the request (no message
 * sent before it) is handed over as the message itself rather than wrapped in a `Response` to be
 * read back; errors and anything streamed go the SDK's way, with its statuses. The exchange ends
 * with the answer: the instance holds nothing else, so it is dropped rather than closed.
 */
class ModernTransport extends PerRequestHTTPServerTransport {
  private streamed = false;
  private deliver!: (message: JSONRPCMessage) => void;
  readonly result = new Promise<JSONRPCMessage>((resolve) => (this.deliver = resolve));

  constructor(
    options: ConstructorParameters<typeof PerRequestHTTPServerTransport>[0],
    private readonly requestId: JSONRPCRequest['id'],
  ) {
    super(options);
  }

  override async send(message: JSONRPCMessage, options?: Parameters<PerRequestHTTPServerTransport['send']>[1]): Promise<void> {
    if (!this.streamed && 'result' in message && message.id === this.requestId) {
      this.deliver(message);
      return;
    }
    if (!('result' in message) && !('error' in message)) this.streamed = true;
    return super.send(message, options);
  }
}

/** A transport for one request message: it keeps the server's answer to that request. */
class SingleAnswerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private answered = false;
  private resolve!: (message: JSONRPCMessage) => void;
  private reject!: (error: Error) => void;
  readonly answer = new Promise<JSONRPCMessage>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // Only the response to the one request ends the exchange (a stateless answer carries nothing else).
    if (!this.answered && ('result' in message || 'error' in message)) {
      this.answered = true;
      this.resolve(message);
    }
  }

  async close(): Promise<void> {
    if (!this.answered) this.reject(new Error('the MCP exchange closed before an answer'));
    this.answered = true;
    this.onclose?.();
  }
}
