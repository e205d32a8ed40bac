import { randomBytes } from 'node:crypto';
import { generateToken } from '@app/credential-store';
import { McpEndpoint } from '@app/mcp';
import { Metrics } from '@app/observability';
import { createAgentToken, createOrganization, createProject } from './factories';
import { MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

const META = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };
const LEGACY = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const modern = (method: string, name?: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN_VERSION,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});
/** Headers that differ between any two answers (time, request id, connection handling). */
const VARYING = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

interface Case {
  name: string;
  headers: (token: string) => Record<string, string>;
  body: string;
  /**
   * Refused before the endpoint, by the same functions on both routes: the credential check
   * (before the body is read), then the body middleware.
   */
  refusedBeforeEndpoint?: true;
}

/**
 * `POST /api/mcp` is served ahead of Nest's router by the endpoint's own route; a request with
 * a query string goes through the router to `McpController`. Both must answer every request
 * alike: the same status, headers and body, for every kind of refusal and for both generations.
 */
describe('MCP endpoint: its own route and the router answer alike', () => {
  let t: TestApp;
  let token: string;
  let readOnly: string;
  let served: jest.SpyInstance;

  beforeAll(async () => {
    t = await startTestApp();
    const organization = await createOrganization(t.dataSource);
    const project = await createProject(t.dataSource, organization.id);
    token = (await createAgentToken(t.dataSource, project)).token;
    readOnly = (await createAgentToken(t.dataSource, project, { permissions: ['tasks:read'] })).token;
    served = jest.spyOn(t.app.get(McpEndpoint), 'serve');
  });
  afterAll(async () => t?.close());

  const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
  const call = (id: number, name: string, args: Record<string, unknown>, meta = false) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: META } : {}) } });

  const cases: Case[] = [
    { name: 'tools/call (2025-11-25)', headers: (k) => ({ ...LEGACY, ...bearer(k) }), body: call(1, 'get_project', {}) },
    { name: 'tools/call (2026-07-28)', headers: (k) => ({ ...modern('tools/call', 'get_project'), ...bearer(k) }), body: call(2, 'get_project', {}, true) },
    { name: 'tools/list (2026-07-28)', headers: (k) => ({ ...modern('tools/list'), ...bearer(k) }), body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: META } }) },
    {
      name: 'initialize (the SDK generic path)',
      headers: (k) => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer(k) }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    },
    { name: 'a batch', headers: (k) => ({ ...LEGACY, ...bearer(k) }), body: `[${call(5, 'get_project', {})}]` },
    { name: 'an unknown argument', headers: (k) => ({ ...LEGACY, ...bearer(k) }), body: call(6, 'get_project', { projectId: 'x' }) },
    { name: 'the x-agent-token header', headers: (k) => ({ ...LEGACY, 'x-agent-token': k }), body: call(7, 'get_project', {}) },
    { name: 'malformed JSON', headers: (k) => ({ ...LEGACY, ...bearer(k) }), body: '{"jsonrpc": "2.0", ', refusedBeforeEndpoint: true },
    { name: 'an empty body', headers: (k) => ({ ...LEGACY, ...bearer(k) }), body: '' },
    { name: 'a body nested too deep', headers: (k) => ({ ...LEGACY, ...bearer(k) }), body: `${'['.repeat(100)}${']'.repeat(100)}`, refusedBeforeEndpoint: true },
    { name: 'a body over 1 MiB', headers: (k) => ({ ...LEGACY, ...bearer(k) }), body: call(8, 'create_task', { title: 'x'.repeat(1024 * 1024) }), refusedBeforeEndpoint: true },
    { name: 'no credential', headers: () => LEGACY, body: call(9, 'get_project', {}), refusedBeforeEndpoint: true },
    { name: 'an unknown token', headers: () => ({ ...LEGACY, ...bearer(generateToken('dga_')) }), body: call(10, 'get_project', {}), refusedBeforeEndpoint: true },
    { name: 'a token with a bad checksum', headers: () => ({ ...LEGACY, ...bearer(`dga_${'A'.repeat(49)}`) }), body: call(11, 'get_project', {}), refusedBeforeEndpoint: true },
    { name: 'a session-like JWT', headers: () => ({ ...LEGACY, ...bearer('aaa.bbb.ccc') }), body: call(12, 'get_project', {}), refusedBeforeEndpoint: true },
    { name: 'two different credentials', headers: (k) => ({ ...LEGACY, ...bearer(k), 'x-agent-token': generateToken('dga_') }), body: call(13, 'get_project', {}), refusedBeforeEndpoint: true },
    { name: 'a text/plain body', headers: (k) => ({ ...LEGACY, 'content-type': 'text/plain', ...bearer(k) }), body: call(14, 'get_project', {}) },
    { name: 'an unsupported protocol version', headers: (k) => ({ ...LEGACY, 'mcp-protocol-version': '2024-11-05', ...bearer(k) }), body: call(15, 'get_project', {}) },
    { name: 'a tool the token may not call', headers: () => ({ ...LEGACY, ...bearer(readOnly) }), body: call(16, 'get_project', {}) },
    { name: 'a NUL character in the params', headers: (k) => ({ ...LEGACY, ...bearer(k) }), body: call(17, 'get_task', { id: 'a\u0000b' }), refusedBeforeEndpoint: true },
    { name: 'a NUL character in a cookie', headers: (k) => ({ ...LEGACY, ...bearer(k), cookie: 'x=%00' }), body: call(18, 'get_project', {}), refusedBeforeEndpoint: true },
    { name: 'malformed JSON without a credential', headers: () => LEGACY, body: '{"jsonrpc": "2.0", ', refusedBeforeEndpoint: true },
    {
      name: 'a body over 1 MiB with an unknown token',
      headers: () => ({ ...LEGACY, ...bearer(generateToken('dga_')) }),
      body: call(21, 'create_task', { title: 'x'.repeat(1024 * 1024) }),
      refusedBeforeEndpoint: true,
    },
    { name: 'a NUL character in the params without a credential', headers: () => LEGACY, body: call(22, 'get_task', { id: 'a\u0000b' }), refusedBeforeEndpoint: true },
    { name: 'a tool that does not exist', headers: (k) => ({ ...LEGACY, ...bearer(k) }), body: call(19, 'no_such_tool', {}) },
  ];

  it.each(cases)('$name', async ({ headers, body, refusedBeforeEndpoint }) => {
    const secret = randomBytes(4).toString('hex');
    const own = await answer('/api/mcp', headers(token), body);
    expect(served).toHaveBeenCalledTimes(refusedBeforeEndpoint ? 0 : 1);
    served.mockClear();
    const routed = await answer(`/api/mcp?via=router-${secret}`, headers(token), body);
    expect(served).not.toHaveBeenCalled();
    expect(own).toEqual(routed);
  });

  it('labels requests in the metrics as the router does: /api/mcp once past the body middleware or refused the credential, unmatched before', async () => {
    const count = async (route: string, status: number) => {
      const { body } = await t.app.get(Metrics).render();
      const line = body.split('\n').find((l) => l.startsWith(`agent_gateway_http_requests_total{method="POST",route="${route}",status="${status}"}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const [served, refused, unauthorized] = [await count('/api/mcp', 200), await count('unmatched', 400), await count('/api/mcp', 401)];
    const legacy = { ...LEGACY, ...bearer(token) };
    for (const path of ['/api/mcp', '/api/mcp?via=router']) {
      expect((await answer(path, legacy, call(20, 'get_project', {}))).status).toBe(200);
      expect((await answer(path, legacy, '{"jsonrpc": ')).status).toBe(400);
      expect((await answer(path, LEGACY, '{"jsonrpc": ')).status).toBe(401);
    }
    expect(await count('/api/mcp', 200)).toBe(served + 2);
    expect(await count('unmatched', 400)).toBe(refused + 2);
    expect(await count('/api/mcp', 401)).toBe(unauthorized + 2);
  });

  it('counts each refused credential once in the metrics, on either route', async () => {
    const refusals = async (labels: string) => {
      const { body } = await t.app.get(Metrics).render();
      const line = body.split('\n').find((l) => l.startsWith(`agent_gateway_credential_refusals_total{${labels}}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const unknown = 'kind="agent_token",reason="invalid"';
    const missing = 'kind="none",reason="missing"';
    const before = [await refusals(unknown), await refusals(missing)];
    for (const path of ['/api/mcp', '/api/mcp?via=router']) {
      expect((await answer(path, { ...LEGACY, ...bearer(generateToken('dga_')) }, call(23, 'get_project', {}))).status).toBe(401);
      expect((await answer(path, LEGACY, call(24, 'get_project', {}))).status).toBe(401);
    }
    expect([await refusals(unknown), await refusals(missing)]).toEqual([before[0] + 2, before[1] + 2]);
  });

  /** Status, headers (but the varying ones) and body of one answer. */
  async function answer(path: string, headers: Record<string, string>, body: string) {
    const res = await fetch(`${t.baseUrl}${path}`, { method: 'POST', headers, body });
    const answerHeaders: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (!VARYING.has(name)) answerHeaders[name] = value;
    });
    return { status: res.status, headers: answerHeaders, body: await res.text() };
  }
});
