import type { ServerResponse } from 'node:http';
import { type AuthInfo, createMcpHandler, PerRequestHTTPServerTransport, Server } from '@modelcontextprotocol/server';
import { expectInternal } from '../../../test/helpers/framework-canary';
import { directExchange, serveDirect } from './mcp-exchange';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from './protocol-versions';

/**
 * Canaries: what `mcp-exchange.ts` relies on in the MCP SDK beyond its documented use
 * (docs/architecture.md, "Framework internals relied on"): a subclass of the SDK's per-request
 * transport that overrides `send`, and answers that must equal, byte for byte, the ones the
 * SDK's generic handler writes. No database, no socket.
 */

const MODERN = MODERN_PROTOCOL_VERSIONS[0];
const LEGACY = LEGACY_PROTOCOL_VERSIONS[0];
const AUTH: AuthInfo = { token: 'not-a-secret', clientId: 'canary', scopes: [] };
const TOOLS = [{ name: 'get_thing', description: 'A thing', inputSchema: { type: 'object' as const, properties: {} } }];

function server(era: 'modern' | 'legacy'): Server {
  const s = new Server(
    { name: 'canary', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, supportedProtocolVersions: era === 'modern' ? [...LEGACY_PROTOCOL_VERSIONS, MODERN] : [...LEGACY_PROTOCOL_VERSIONS] },
  );
  s.setRequestHandler('tools/list', () => ({ tools: TOOLS }));
  return s;
}

/** A response that keeps what is written to it. */
function recordingResponse() {
  const written = { status: 0, headers: {} as Record<string, string | number>, body: '' };
  const res = {
    writeHead(status: number, headers: Record<string, string | number>) {
      written.status = status;
      written.headers = headers;
      return this;
    },
    end(text: string) {
      written.body = text;
    },
  };
  return { res: res as unknown as ServerResponse, written };
}

const modern = {
  headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
  body: {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/list',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
  },
};
const legacy = {
  headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': LEGACY },
  body: { jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} },
};

/** What the SDK's generic handler answers to the same request. */
async function generic(request: { headers: Record<string, string>; body: object }) {
  const handler = createMcpHandler((ctx) => server(ctx.era), { legacy: 'stateless' });
  const answer = await handler.fetch(
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers: request.headers, body: JSON.stringify(request.body) }),
    { authInfo: AUTH },
  );
  return { status: answer.status, type: answer.headers.get('content-type'), body: await answer.text(), headers: answer.headers };
}

describe('MCP SDK internals used by mcp-exchange.ts', () => {
  it('PerRequestHTTPServerTransport takes a classification, and a subclass may override send and handleMessage stays', () =>
    expectInternal('@modelcontextprotocol/server PerRequestHTTPServerTransport (constructor options, #send, #handleMessage; used by mcp-exchange.ts ModernTransport)', () => {
      expect(typeof PerRequestHTTPServerTransport).toBe('function');
      expect(typeof PerRequestHTTPServerTransport.prototype.send).toBe('function');
      expect(typeof PerRequestHTTPServerTransport.prototype.handleMessage).toBe('function');
      const exchange = directExchange(modern.headers, modern.body);
      expect(exchange?.era).toBe('modern');
    }));

  it("the server hands a request's plain result to the transport's send, which the subclass keeps (the result never becomes a Response)", () =>
    expectInternal('@modelcontextprotocol/server PerRequestHTTPServerTransport#send receiving the result (used by mcp-exchange.ts ModernTransport)', async () => {
      const send = jest.spyOn(PerRequestHTTPServerTransport.prototype, 'send');
      try {
        const { res, written } = recordingResponse();
        await serveDirect(directExchange(modern.headers, modern.body)!, server('modern'), AUTH, res);
        expect(written.status).toBe(200);
        // The subclass kept the result: the SDK's own send (which wraps it in a Response) never ran.
        expect(send).not.toHaveBeenCalled();
        // And the SDK's own exchange hands the result to that method, as the subclass expects.
        await generic(modern);
        expect(send.mock.calls.map(([message]) => message)).toContainEqual(expect.objectContaining({ id: 7, result: expect.any(Object) }));
      } finally {
        send.mockRestore();
      }
    }));

  it("a 2026-07-28 tools/list answered directly equals the SDK's generic handler's answer, byte for byte", () =>
    expectInternal("@modelcontextprotocol/server createMcpHandler's modern JSON answer (copied by mcp-exchange.ts serveDirect)", async () => {
      const { res, written } = recordingResponse();
      await serveDirect(directExchange(modern.headers, modern.body)!, server('modern'), AUTH, res);
      const sdk = await generic(modern);
      expect({ status: written.status, type: written.headers['Content-Type'], body: written.body }).toEqual({ status: sdk.status, type: sdk.type, body: sdk.body });
    }));

  it("a 2025 tools/list answered directly equals the SDK's stateless legacy answer (SSE event and headers), byte for byte", () =>
    expectInternal("@modelcontextprotocol/server's stateless legacy SSE answer (framing and headers copied by mcp-exchange.ts SSE_HEADERS)", async () => {
      const { res, written } = recordingResponse();
      await serveDirect(directExchange(legacy.headers, legacy.body)!, server('legacy'), AUTH, res);
      const sdk = await generic(legacy);
      expect({ status: written.status, body: written.body }).toEqual({ status: sdk.status, body: sdk.body });
      for (const name of ['Content-Type', 'Cache-Control', 'Connection', 'X-Accel-Buffering']) {
        expect([name, written.headers[name]]).toEqual([name, sdk.headers.get(name)]);
      }
    }));
});
