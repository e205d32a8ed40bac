import fc from 'fast-check';
import { connect } from 'node:net';
import request from 'supertest';
import { generateToken } from '@app/credential-store';
import { McpEndpoint } from '@app/mcp';
import { createProjectWithToken } from './factories';
import { MCP_401_BODY, missingTokenChallenge } from './fixtures/mcp-401';
import { startTestApp, TestApp } from './helpers/test-app';

const BROWSER_CLIENT = 'http://localhost:6274';
const ACCEPT = 'application/json, text/event-stream';

/** `levels` nested arrays inside a JSON-RPC request's params. */
function deeplyNested(levels: number): string {
  return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_project","arguments":{"x":${'['.repeat(levels)}${']'.repeat(levels)}}}}`;
}

/**
 * Writes a POST's head and `body` on a connection of its own. `line` resolves with the answer's
 * status line, or rejects if the connection ends without one; `close` ends the connection.
 */
function rawPost(baseUrl: string, path: string, headers: Record<string, string>, body: string): { line: Promise<string>; close: () => void } {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  const line = new Promise<string>((resolve, reject) => {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n');
      if (end !== -1) resolve(received.slice(0, end));
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('connection closed without an answer')));
  });
  line.catch(() => undefined);
  const lines = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Content-Type: application/json', `Accept: ${ACCEPT}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  return { line, close: () => socket.destroy() };
}

describe('MCP endpoint HTTP edges: bodies, sizes, origins (SPEC §3)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp({ MCP_ALLOWED_ORIGINS: BROWSER_CLIENT });
    ({ token } = await createProjectWithToken(t.dataSource));
  });
  afterAll(() => t.close());

  const post = () =>
    request(t.baseUrl).post('/api/mcp').set('Authorization', `Bearer ${token}`).set('Accept', ACCEPT).set('Content-Type', 'application/json');

  describe('bodies', () => {
    it('answers malformed JSON with HTTP 400 and JSON-RPC -32700', async () => {
      const res = await post().send('{"jsonrpc":"2.0","id":1,"method":');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the request body is not valid JSON' } });
    });

    it.each([
      ['malformed JSON', 'not json'],
      ['a body nested too deep', deeplyNested(100)],
      ['a body over 1 MiB', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(1024 * 1024) } })],
    ])('checks the credential before the body: %s without one gets the 401, on both routes', async (_what, body) => {
      for (const path of ['/api/mcp', '/api/mcp?via=router']) {
        const res = await request(t.baseUrl).post(path).set('Content-Type', 'application/json').send(body);
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe(missingTokenChallenge(t.baseUrl));
        expect(res.body).toEqual(MCP_401_BODY);
      }
    });

    // Content-Length promises 1,000 bytes and only 11 are sent: only an answer that does not wait for the body arrives.
    const partial = (path: string, credential: string) =>
      rawPost(t.baseUrl, path, { authorization: `Bearer ${credential}`, 'content-length': '1000' }, '{"jsonrpc":');
    /** The answer's status line, or 'no answer yet' after `ms`. */
    const within = (line: Promise<string>, ms: number) =>
      Promise.race([line, new Promise<string>((resolve) => setTimeout(() => resolve('no answer yet'), ms))]);

    it('answers a request without a live agent token before its body has arrived, on both routes', async () => {
      for (const path of ['/api/mcp', '/api/mcp?via=router']) {
        for (const credential of [`dga_${'A'.repeat(49)}`, generateToken('dga_')]) {
          const post = partial(path, credential);
          try {
            expect(await within(post.line, 10_000)).toBe('HTTP/1.1 401 Unauthorized');
          } finally {
            post.close();
          }
        }
      }
    });

    it('answers no further a client that went away while its token was looked up: the endpoint never gets a request without its body', async () => {
      const served = jest.spyOn(t.app.get(McpEndpoint), 'serve');
      try {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        const { hostname, port } = new URL(t.baseUrl);
        const head = [`POST /api/mcp HTTP/1.1`, `Host: ${hostname}:${port}`, 'Content-Type: application/json', `Accept: ${ACCEPT}`, 'MCP-Protocol-Version: 2025-11-25'];
        // The whole request, then the end of the connection at once: the server sees the client
        // go while the token's lookup is under way.
        const gone = Array.from({ length: 20 }, () => {
          const socket = connect(Number(port), hostname);
          socket.on('error', () => undefined);
          socket.end(`${[...head, `Authorization: Bearer ${token}`, `Content-Length: ${Buffer.byteLength(body)}`].join('\r\n')}\r\n\r\n${body}`);
          return new Promise((resolve) => socket.on('close', resolve));
        });
        // Let the server see them go (bounded: it does not close every such connection at once).
        await Promise.race([Promise.all(gone), new Promise((resolve) => setTimeout(resolve, 2_000))]);
        // A request after them on its own connection, answered: the ones before it have been handled.
        expect((await post().set('MCP-Protocol-Version', '2025-11-25').send(body)).status).toBe(200);
        const bodies = served.mock.calls.map(([req]) => (req as { body?: unknown }).body);
        expect(bodies.length).toBeGreaterThanOrEqual(1);
        expect(bodies.filter((b) => b === undefined)).toEqual([]);
      } finally {
        served.mockRestore();
      }
    });

    it('waits for the whole body of a request with a live token', async () => {
      const post = partial('/api/mcp', token);
      try {
        expect(await within(post.line, 300)).toBe('no answer yet');
      } finally {
        post.close();
      }
    });

    it.each([
      ['an object that is not JSON-RPC', '{"hello":"world"}', null],
      ['a JSON number', '42', null],
      ['a JSON string', '"tools/list"', null],
      ['null', 'null', null],
      ['an empty batch', '[]', null],
      ['a request without a method', '{"jsonrpc":"2.0","id":1}', null],
      ['a wrong jsonrpc version', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', 1],
    ])('answers %s with HTTP 400 and JSON-RPC -32600', async (_what, body, id) => {
      const res = await post().send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
    });

    it('answers a body over 1 MiB with 413 and a JSON-RPC error', async () => {
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(1024 * 1024) } });
      const res = await post().send(big);
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request body exceeds 1048576 bytes' } });
    });

    it('accepts a body just under the limit', async () => {
      const body = { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: 'x'.repeat(1000 * 1000) } } };
      const res = await post().set('MCP-Protocol-Version', '2025-06-18').send(JSON.stringify(body));
      expect(res.status).toBe(200);
    });

    it.each([5_000, 100_000])('answers a body nested %i levels deep with 400 -32600, never a 500', async (levels) => {
      const res = await post().send(deeplyNested(levels));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: Request body nests deeper than 64 levels' } });
    });

    it('bounds nesting on the REST surface too (400, never a 500)', async () => {
      const res = await request(t.baseUrl).post('/api/organizations').set('Content-Type', 'application/json').send(deeplyNested(5_000));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, message: 'Request body nests deeper than 64 levels', error: 'Bad Request' });
    });

    it.each([
      ['text/plain', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
      ['application/x-www-form-urlencoded', 'jsonrpc=2.0&id=1&method=tools%2Flist'],
    ])('answers a %s body with 415', async (type, body) => {
      const res = await request(t.baseUrl)
        .post('/api/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', ACCEPT)
        .set('Content-Type', type)
        .send(body);
      expect(res.status).toBe(415);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' },
      });
    });

    it('answers an empty JSON body with 400 -32600', async () => {
      const res = await post();
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    });

    it('answers a request that does not accept JSON and SSE with 406 (the SDK rule)', async () => {
      const res = await request(t.baseUrl)
        .post('/api/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', 'text/html')
        .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
      expect(res.status).toBe(406);
    });
  });

  describe('never a 500', () => {
    const methods = fc.constantFrom('initialize', 'tools/list', 'tools/call', 'server/discover', 'ping', 'resources/list', 'nope', '');
    const message = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.object()),
        method: methods,
        params: fc.oneof(
          fc.object(),
          fc.record({ name: fc.oneof(fc.constantFrom('get_project', 'list_tasks'), fc.string()), arguments: fc.oneof(fc.object(), fc.jsonValue()) }),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: [] },
    );
    const versions = fc.constantFrom(undefined, '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'bogus');

    it('answers any JSON-RPC-shaped body, batch or stray JSON value with a status below 500', async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(message, fc.array(message, { maxLength: 3 }), fc.jsonValue()), versions, async (body, version) => {
          const req = post();
          if (version) req.set('MCP-Protocol-Version', version);
          const res = await req.send(JSON.stringify(body));
          expect(res.status).toBeLessThan(500);
        }),
        { numRuns: 100 },
      );
    });

    it('answers any byte string with a status below 500', async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
          const res = await post().send(text);
          expect(res.status).toBeLessThan(500);
        }),
        { numRuns: 100 },
      );
    });
  });

  describe('origins and CORS', () => {
    it('refuses a disallowed Origin with 403, with or without a credential', async () => {
      for (const auth of [undefined, `Bearer ${token}`]) {
        const req = request(t.baseUrl).post('/api/mcp').set('Origin', 'https://evil.example').set('Accept', ACCEPT);
        if (auth) req.set('Authorization', auth);
        const res = await req.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        expect(res.status).toBe(403);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    });

    it('grants CORS to an allowed Origin and exposes WWW-Authenticate and Mcp-Session-Id (on the 401 too)', async () => {
      const denied = await request(t.baseUrl).post('/api/mcp').set('Origin', BROWSER_CLIENT).send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(denied.status).toBe(401);
      expect(denied.body).toEqual(MCP_401_BODY);
      expect(denied.headers['www-authenticate']).toBe(missingTokenChallenge(t.baseUrl));
      for (const res of [
        denied,
        await post().set('Origin', BROWSER_CLIENT).set('MCP-Protocol-Version', '2025-06-18').send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      ]) {
        expect(res.headers['access-control-allow-origin']).toBe(BROWSER_CLIENT);
        const exposed = res.headers['access-control-expose-headers'].split(/,\s*/).map((h: string) => h.toLowerCase());
        expect(exposed).toEqual(expect.arrayContaining(['www-authenticate', 'mcp-session-id', 'mcp-protocol-version']));
        expect(res.headers.vary).toMatch(/Origin/);
      }
    });

    it('passes a preflight without a credential and allows the MCP headers', async () => {
      const res = await request(t.baseUrl)
        .options('/api/mcp')
        .set('Origin', BROWSER_CLIENT)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization, content-type, mcp-protocol-version, mcp-method, mcp-name');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(BROWSER_CLIENT);
      expect(res.headers['access-control-allow-methods']).toMatch(/POST/);
      const allowed = res.headers['access-control-allow-headers'].split(/,\s*/).map((h: string) => h.toLowerCase());
      expect(allowed).toEqual(
        expect.arrayContaining(['authorization', 'x-agent-token', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'mcp-method', 'mcp-name']),
      );
    });

    it('refuses a preflight from a disallowed Origin', async () => {
      const res = await request(t.baseUrl)
        .options('/api/mcp')
        .set('Origin', 'https://evil.example')
        .set('Access-Control-Request-Method', 'POST');
      expect(res.status).toBe(403);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it.each(['/health/ready', '/api/organizations', '/api/docs/openapi.json'])(
      'grants no CORS on the REST route %s, not even to the MCP browser origin',
      async (path) => {
        const preflight = await request(t.baseUrl)
          .options(path)
          .set('Origin', BROWSER_CLIENT)
          .set('Access-Control-Request-Method', 'GET')
          .set('Access-Control-Request-Headers', 'authorization');
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
        expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
        const actual = await request(t.baseUrl).get(path).set('Origin', BROWSER_CLIENT);
        expect(actual.headers['access-control-allow-origin']).toBeUndefined();
      },
    );
  });
});
