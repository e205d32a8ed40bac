import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createAgentToken, createProject } from './factories';
import { createTeam } from './factories/rest';
import { mountedRoutes } from './helpers/routes';
import { startTestApp, TestApp } from './helpers/test-app';

const NUL = '\u0000';
const LONE_SURROGATE = '\ud800';
const MESSAGE = /^The request contains a NUL character or an unpaired UTF-16 surrogate in /;

/**
 * PostgreSQL refuses NUL in text (a 500 once it reached a query) and would store an unpaired
 * surrogate as U+FFFD: every route refuses both, wherever they come, in its usual 4xx shape.
 */
describe('NUL bytes and unpaired surrogates never reach the database', () => {
  let t: TestApp;
  let team: Awaited<ReturnType<typeof createTeam>>;
  let project: Awaited<ReturnType<typeof createProject>>;
  let projectId: string;
  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000', SIGNUP_RATE_LIMIT_PER_HOUR: '100000' });
    team = await createTeam(t);
    project = await createProject(t.dataSource, team.organization.id);
    projectId = project.id;
  });
  afterAll(() => t.close());

  /** A mounted route's path with its parameters filled in (ids of the team where they exist). */
  function concrete(path: string): string {
    return path
      .replace(':orgId', team.organization.id)
      .replace(':projectId', projectId)
      .replace(/:[A-Za-z]+/g, () => randomUUID())
      .replace(/\*[A-Za-z]+|\{\*[A-Za-z]+\}/g, 'x');
  }

  function send(method: string, path: string) {
    const agent = request(t.baseUrl);
    const m = (method === 'ALL' ? 'post' : method.toLowerCase()) as 'get' | 'post' | 'delete' | 'patch' | 'put';
    return agent[m](path).set('Authorization', `Bearer ${team.admin.jwt}`);
  }

  function expectRefused(res: request.Response, route: string) {
    if (res.status < 400 || res.status >= 500) throw new Error(`${route} answered ${res.status}: ${res.text.slice(0, 300)}`);
  }

  it('every mounted route refuses a NUL in the query string with a 4xx', async () => {
    const routes = mountedRoutes(t.app);
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      if (route.path.startsWith('/api/docs')) continue;
      const path = concrete(route.path);
      const res = await send(route.method, `${path}?q=a%00b`);
      expectRefused(res, `${route.method} ${route.path} (query)`);
    }
  });

  it('every route taking a body refuses a NUL or a lone surrogate in a JSON field or key, and in a form field', async () => {
    for (const route of mountedRoutes(t.app).filter((r) => ['POST', 'PATCH', 'PUT', 'DELETE', 'ALL'].includes(r.method))) {
      const path = concrete(route.path);
      const label = `${route.method} ${route.path}`;
      expectRefused(await send(route.method, path).send({ name: `a${NUL}b`, permissions: ['tasks:read'] }), `${label} (JSON value)`);
      expectRefused(await send(route.method, path).send({ name: `a${LONE_SURROGATE}b` }), `${label} (JSON surrogate)`);
      expectRefused(await send(route.method, path).send({ [`k${NUL}`]: 'v' }), `${label} (JSON key)`);
      expectRefused(await send(route.method, path).type('form').send(`name=a%00b&email=x%00`), `${label} (form)`);
    }
  });

  it('the authorize endpoint answers the report case (client_id=%00) with its HTML error page, not a 500', async () => {
    const res = await request(t.baseUrl).get(
      '/api/agent/oauth/authorize?client_id=%00&redirect_uri=https%3A%2F%2Fa.example%2Fcb&response_type=code&code_challenge=x&code_challenge_method=S256',
    );
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('The request contains a NUL character or an unpaired UTF-16 surrogate in the query parameter client_id');
  });

  it('the token, revocation and registration endpoints answer RFC 6749 / 7591 errors', async () => {
    const token = await request(t.baseUrl).post('/api/agent/oauth/token').type('form').send('grant_type=authorization_code&code=%00&client_id=x');
    expect(token.status).toBe(400);
    expect(token.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(MESSAGE) });
    const revoke = await request(t.baseUrl).post('/api/agent/oauth/revoke').type('form').send('token=dgr_%00');
    expect(revoke.status).toBe(400);
    expect(revoke.body.error).toBe('invalid_request');
    const register = await request(t.baseUrl).post('/api/agent/oauth/register').send({ redirect_uris: ['https://a.example/cb'], client_name: `x${NUL}` });
    expect(register.status).toBe(400);
    expect(register.body).toEqual({ error: 'invalid_client_metadata', error_description: expect.stringMatching(MESSAGE) });
  });

  it('the MCP endpoint answers JSON-RPC errors: invalid params to the request inside params, else 400 invalid request', async () => {
    const { token } = await createAgentToken(t.dataSource, project);
    const mcp = () => request(t.baseUrl).post('/api/mcp').set('Accept', 'application/json, text/event-stream').set('Authorization', `Bearer ${token}`);
    const params = await mcp().send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'create_task', arguments: { title: `t${NUL}` } } });
    expect(params.status).toBe(200);
    expect(params.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringMatching(MESSAGE) } });
    expect(params.body.error.message).toContain('params.arguments.title');
    const method = await mcp().send({ jsonrpc: '2.0', id: 8, method: `tools/call${LONE_SURROGATE}` });
    expect(method.status).toBe(400);
    expect(method.body).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32600, message: expect.stringMatching(MESSAGE) } });
    const query = await mcp().set('x-agent-token', token).query({ q: NUL }).send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    expect(query.status).toBe(400);
    expect(query.body.error.code).toBe(-32600);
    // The credential is checked before the body is read: without a live agent token, the 401 whatever the text.
    const anonymous = await request(t.baseUrl)
      .post('/api/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'create_task', arguments: { title: `t${NUL}` } } });
    expect(anonymous.status).toBe(401);
  });

  it('REST answers its 400 naming the field, and nothing was stored', async () => {
    const res = await send('POST', `/api/organizations/${team.organization.id}/projects`).send({ name: `evil${NUL}` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message: 'The request contains a NUL character or an unpaired UTF-16 surrogate in the body field name',
      error: 'Bad Request',
    });
    const surrogate = await send('POST', `/api/organizations/${team.organization.id}/projects`).send({ name: `odd${LONE_SURROGATE}` });
    expect(surrogate.status).toBe(400);
    const rows = await t.dataSource.query(`SELECT name FROM projects WHERE organization_id = $1 AND (name LIKE 'evil%' OR name LIKE 'odd%')`, [
      team.organization.id,
    ]);
    expect(rows).toEqual([]);
  });

  it('a NUL in a cookie or in the path is refused too', async () => {
    const cookie = await request(t.baseUrl).get('/').set('Cookie', 'ag_session=a%00b');
    expect(cookie.status).toBe(400);
    const path = await send('GET', `/api/organizations/${team.organization.id}%00/projects`);
    expect(path.status).toBe(400);
  });
});
