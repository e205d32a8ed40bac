import { InsufficientScopeError, ProtocolError } from '@modelcontextprotocol/client';
import request from 'supertest';
import { createProjectWithToken } from './factories';
import { softDeleteProject } from './factories/mcp';
import { insufficientScopeChallenge } from './fixtures/mcp-401';
import { connectClient, LEGACY_VERSIONS, MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

const ALL_PERMISSIONS = ['project:read', 'tasks:read', 'tasks:write', 'tasks:delete'];
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('MCP endpoint through the official client (SPEC §3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe.each([...LEGACY_VERSIONS, MODERN_VERSION])('protocol %s', (version) => {
    const modern = version === MODERN_VERSION;

    it.each([
      ['Authorization: Bearer', (token: string) => ({ Authorization: `Bearer ${token}` })],
      ['x-agent-token', (token: string) => ({ 'x-agent-token': token })],
    ])('connects, lists and calls get_project with the token in %s', async (_form, headersFor) => {
      const { organization, project, token } = await createProjectWithToken(t.dataSource);
      const { client, exchanges, close } = await connectClient(t.baseUrl, version, headersFor(token));
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(version);
        expect(client.getServerVersion()?.name).toBe('agent-gateway');

        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toContain('get_project');
        const getProject = tools.find((tool) => tool.name === 'get_project')!;
        expect(getProject.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
        expect(getProject.annotations?.readOnlyHint).toBe(true);

        const result = await client.callTool({ name: 'get_project', arguments: {} });
        const expected = {
          id: project.id,
          name: project.name,
          organization: { id: organization.id, name: organization.name },
          permissions: ALL_PERMISSIONS,
        };
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual(expected);
        expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(expected) }]);
      } finally {
        await close();
      }

      // Stateless: no session id, ever. 2025-era requests are answered as SSE, 2026-07-28 as JSON.
      const posts = exchanges.filter((e) => e.method === 'POST');
      expect(posts.length).toBeGreaterThanOrEqual(3);
      for (const e of exchanges) expect(e.responseHeaders['mcp-session-id']).toBeUndefined();
      for (const e of posts.filter((p) => (p.requestBody as { id?: unknown }).id !== undefined)) {
        expect(e.status).toBe(200);
        expect(e.responseHeaders['content-type']).toMatch(modern ? /^application\/json/ : /^text\/event-stream/);
      }
      const call = posts.find((p) => (p.requestBody as { method?: string }).method === 'tools/call')!;
      if (modern) {
        expect(posts[0].requestBody).toMatchObject({ method: 'server/discover' });
        expect(call.requestHeaders).toMatchObject({
          'mcp-protocol-version': MODERN_VERSION,
          'mcp-method': 'tools/call',
          'mcp-name': 'get_project',
        });
      } else {
        expect(posts[0].requestBody).toMatchObject({ method: 'initialize', params: { protocolVersion: version } });
        expect(call.requestHeaders['mcp-protocol-version']).toBe(version);
      }
    });

    it('lists only the tools the token may call and refuses the others with 403 insufficient_scope', async () => {
      const { token } = await createProjectWithToken(t.dataSource, { permissions: ['tasks:read'] });
      const { client, close } = await connectClient(t.baseUrl, version, { Authorization: `Bearer ${token}` });
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).not.toContain('get_project');
        const refusal = await client.callTool({ name: 'get_project', arguments: {} }).catch((e: unknown) => e);
        expect(refusal).toBeInstanceOf(InsufficientScopeError);
        expect((refusal as InsufficientScopeError).requiredScope).toBe('project:read');
        expect((refusal as InsufficientScopeError).resourceMetadataUrl?.href).toBe(
          `${t.baseUrl}/.well-known/oauth-protected-resource/api/mcp`,
        );
      } finally {
        await close();
      }
    });

    it('refuses an unknown argument (a projectId) as invalid params', async () => {
      const { token } = await createProjectWithToken(t.dataSource);
      const { client, close } = await connectClient(t.baseUrl, version, { Authorization: `Bearer ${token}` });
      try {
        const refusal = await client
          .callTool({ name: 'get_project', arguments: { projectId: '00000000-0000-4000-8000-000000000000' } })
          .catch((e: unknown) => e);
        expect(refusal).toBeInstanceOf(ProtocolError);
        expect((refusal as ProtocolError).code).toBe(-32602);
        expect((refusal as ProtocolError).message).toContain('Invalid arguments for tool get_project: Unrecognized key: "projectId"');
      } finally {
        await close();
      }
    });

    it('answers get_project on a deleted project with a tool error, not the project', async () => {
      const { project, token } = await createProjectWithToken(t.dataSource);
      const { client, close } = await connectClient(t.baseUrl, version, { Authorization: `Bearer ${token}` });
      try {
        await softDeleteProject(t.dataSource, project.id);
        const result = await client.callTool({ name: 'get_project', arguments: {} });
        expect(result.isError).toBe(true);
        expect(result.content).toEqual([{ type: 'text', text: 'Project not found' }]);
        expect(result.structuredContent).toBeUndefined();
        expect(result._meta?.['agent-gateway/error']).toEqual({ code: 'not_found' });
      } finally {
        await close();
      }
    });
  });

  it('keeps parallel calls of different tokens apart: each gets its own project', async () => {
    const callers = await Promise.all([1, 2, 3, 4].map(() => createProjectWithToken(t.dataSource)));
    const calls = Array.from({ length: 32 }, (_, i) => callers[i % callers.length]).map(async (caller, i) => {
      const modern = i % 2 === 0;
      const req = request(t.baseUrl)
        .post('/api/mcp')
        .set(i % 3 === 0 ? 'x-agent-token' : 'Authorization', i % 3 === 0 ? caller.token : `Bearer ${caller.token}`)
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', modern ? MODERN_VERSION : '2025-11-25');
      if (modern) req.set('Mcp-Method', 'tools/call').set('Mcp-Name', 'get_project');
      const res = await req.send({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'get_project', arguments: {}, ...(modern ? { _meta: MODERN_META } : {}) },
      });
      expect(res.status).toBe(200);
      const payload = modern ? res.body : JSON.parse(/^data: (.*)$/m.exec(res.text)![1]);
      expect(payload.id).toBe(i);
      expect(payload.result.structuredContent.id).toBe(caller.project.id);
      expect(payload.result.structuredContent.organization.id).toBe(caller.organization.id);
    });
    await Promise.all(calls);
  });

  describe('over raw HTTP', () => {
    let token: string;
    beforeAll(async () => {
      ({ token } = await createProjectWithToken(t.dataSource, { permissions: ['tasks:read'] }));
    });

    const modernCall = (name: string, args: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: args, _meta: MODERN_META },
    });

    it('answers a call without the permission with 403, the insufficient_scope challenge and a JSON-RPC error', async () => {
      const res = await request(t.baseUrl)
        .post('/api/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', MODERN_VERSION)
        .set('Mcp-Method', 'tools/call')
        .set('Mcp-Name', 'get_project')
        .send(modernCall('get_project', {}));
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toBe(insufficientScopeChallenge(t.baseUrl, 'project:read'));
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32003,
          message: 'Insufficient scope: the tool get_project needs the permission project:read, which this token does not carry',
          data: { requiredScope: 'project:read', tool: 'get_project' },
        },
      });
    });

    it('answers a call to a tool that does not exist as invalid params, not 403', async () => {
      const res = await request(t.baseUrl)
        .post('/api/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', MODERN_VERSION)
        .set('Mcp-Method', 'tools/call')
        .set('Mcp-Name', 'no_such_tool')
        .send(modernCall('no_such_tool', {}));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Tool no_such_tool not found' } });
    });

    it.each(['1999-01-01', '2024-11-05', '2027-01-01', 'latest'])('refuses MCP-Protocol-Version %s with 400', async (version) => {
      const res = await request(t.baseUrl)
        .post('/api/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', version)
        .send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 3,
        error: {
          code: -32022,
          message: `Unsupported protocol version: ${version}`,
          data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: version },
        },
      });
    });

    it('lists on server/discover every protocol version the endpoint serves, as the unsupported-version error does', async () => {
      const res = await request(t.baseUrl)
        .post('/api/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', MODERN_VERSION)
        .set('Mcp-Method', 'server/discover')
        .send({ jsonrpc: '2.0', id: 5, method: 'server/discover', params: { _meta: MODERN_META } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 5, result: { capabilities: { tools: {} } } });
      expect(res.body.result.supportedVersions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
    });

    it('refuses an unsupported MCP-Protocol-Version even on initialize', async () => {
      const res = await request(t.baseUrl)
        .post('/api/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', '2024-10-07')
        .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32022);
    });

    it('counter-offers 2025-11-25 to an initialize asking for a revision it does not serve', async () => {
      const res = await request(t.baseUrl)
        .post('/api/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
      expect(res.status).toBe(200);
      const payload = JSON.parse(/^data: (.*)$/m.exec(res.text)![1]);
      expect(payload.result.protocolVersion).toBe('2025-11-25');
      expect(payload.result.instructions).toContain('get_project');
    });

    it.each(['get', 'delete', 'put'] as const)('answers %s with 405 and Allow: POST, with or without a credential', async (method) => {
      for (const auth of [undefined, `Bearer ${token}`]) {
        const req = request(t.baseUrl)[method]('/api/mcp').set('Accept', 'text/event-stream');
        if (auth) req.set('Authorization', auth);
        const res = await req;
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe('POST');
        expect(res.headers['mcp-session-id']).toBeUndefined();
        expect(res.body).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Method not allowed: this endpoint is stateless; send every JSON-RPC message with POST' },
        });
      }
    });
  });
});
