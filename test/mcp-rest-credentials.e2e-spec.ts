import request from 'supertest';
import { createAgentToken, createProject } from './factories';
import { createApiKey, createTeam } from './factories/rest';
import { invalidTokenChallenge, MCP_401_BODY, MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY } from './fixtures/mcp-401';
import { mountedRoutes } from './helpers/routes';
import { startTestApp, TestApp } from './helpers/test-app';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rest-e2e', version: '1.0.0' } },
};

/** REST credentials at the MCP endpoint, and a project deleted over REST as the MCP endpoint sees it. */
describe('REST credentials and deleted projects at /api/mcp', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const mcp = (credential: string) =>
    request(t.baseUrl)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${credential}`)
      .set('Accept', 'application/json, text/event-stream')
      .set('Content-Type', 'application/json')
      .send(initialize);

  function expectSeed401(res: request.Response, body: typeof MCP_401_BODY = MCP_401_BODY) {
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(invalidTokenChallenge(t.baseUrl));
    expect(res.body).toEqual(body);
  }

  it('is mounted', () => {
    expect(mountedRoutes(t.app).some((r) => r.path === '/api/mcp' && r.access?.type === 'agent')).toBe(true);
  });

  it("answers an rk_ key (even one holding every permission) with the seed's exact 401", async () => {
    const team = await createTeam(t);
    const key = await createApiKey(t.dataSource, team.organization.id, ['projects:read', 'projects:write', 'service_keys:read', 'service_keys:write', 'members:read', 'audit:read']);
    expectSeed401(await mcp(key.key));
  });

  it("answers a session JWT with the seed's exact 401", async () => {
    const team = await createTeam(t);
    expectSeed401(await mcp(team.admin.jwt));
  });

  it('refuses the agent tokens of a project at the next request once the project is deleted over REST', async () => {
    const team = await createTeam(t);
    const project = await createProject(t.dataSource, team.organization.id);
    const token = await createAgentToken(t.dataSource, project);
    const before = await mcp(token.token);
    expect(before.status).toBe(200);
    await request(t.baseUrl)
      .delete(`/api/organizations/${team.organization.id}/projects/${project.id}`)
      .auth(team.admin.jwt, { type: 'bearer' })
      .expect(200);
    expectSeed401(await mcp(token.token), MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY);
  });
});
