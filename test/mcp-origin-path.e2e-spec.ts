import request from 'supertest';
import { createProjectWithToken } from './factories';
import { startTestApp, TestApp } from './helpers/test-app';

const ACCEPT = 'application/json, text/event-stream';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

/**
 * The Origin check on `/api/mcp` and the router must agree on what the MCP path is: a spelling
 * the check does not recognise (another case, a trailing slash) is no route at all.
 */
describe('the /api/mcp Origin check cannot be bypassed through the path', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    ({ token } = await createProjectWithToken(t.dataSource));
  });
  afterAll(() => t.close());

  const send = (path: string, origin?: string) => {
    const req = request(t.baseUrl).post(path).set('Authorization', `Bearer ${token}`).set('Accept', ACCEPT).set('Content-Type', 'application/json');
    return (origin ? req.set('Origin', origin) : req).send(INITIALIZE);
  };

  it.each(['/API/MCP', '/Api/Mcp', '/api/MCP', '/API/mcp', '/api/mcp/', '/API/MCP/', '/api/Mcp/'])(
    'POST %s from a refused origin is never served (403 or 404)',
    async (path) => {
      const res = await send(path, 'https://evil.example');
      expect([403, 404]).toContain(res.status);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.text).not.toContain('serverInfo');
    },
  );

  it('the canonical path from a refused origin is 403, and serves without an Origin', async () => {
    expect((await send('/api/mcp', 'https://evil.example')).status).toBe(403);
    const ok = await send('/api/mcp');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('serverInfo');
  });

  it('other routes are case-sensitive and strict too', async () => {
    await request(t.baseUrl).get('/HEALTH/LIVE').expect(404);
    await request(t.baseUrl).get('/health/live/').expect(404);
    await request(t.baseUrl).get('/health/live').expect(200);
  });
});
