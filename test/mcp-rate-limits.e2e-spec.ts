import request from 'supertest';
import { createAgentToken, createOrganization, createProject } from './factories';
import { connectClient, tokenRequest } from './factories/oauth';
import { startTestApp, type TestApp } from './helpers/test-app';

/** Request limits on /api/mcp per token and per organisation (docs/operations.md, "Request limits"). */
describe('MCP request limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ MCP_RATE_LIMIT_PER_TOKEN: '3', MCP_RATE_LIMIT_PER_ORGANIZATION: '5', MCP_RATE_LIMIT_WINDOW_SECONDS: '60' });
  });
  afterAll(() => t.close());

  /** The windows are aligned on the clock: start a test well inside one, so it ends in the same. */
  async function awayFromWindowEnd() {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((r) => setTimeout(r, left + 50));
  }

  function listTools(token: string, id: number) {
    return request(t.baseUrl)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', '2025-06-18')
      .send({ jsonrpc: '2.0', id, method: 'tools/list' });
  }

  async function tokenIn(organizationId: string) {
    const project = await createProject(t.dataSource, organizationId);
    return (await createAgentToken(t.dataSource, project)).token;
  }

  it('refuses a token over its limit with 429, Retry-After and a JSON-RPC error; then its organisation; another organisation is untouched', async () => {
    const org = await createOrganization(t.dataSource);
    const other = await createOrganization(t.dataSource);
    const [a, b, c] = [await tokenIn(org.id), await tokenIn(org.id), await tokenIn(other.id)];
    await awayFromWindowEnd();

    for (let i = 1; i <= 3; i++) expect((await listTools(a, i)).status).toBe(200);
    const overToken = await listTools(a, 4);
    expect(overToken.status).toBe(429);
    const retryAfter = Number(overToken.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(overToken.headers['content-type']).toMatch(/^application\/json/);
    expect(overToken.body).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: {
        code: -32000,
        message: `Too many requests for this token: at most 3 per window; retry after ${retryAfter} s`,
        data: { code: 'rate_limited', limit: 'token', retryAfterSeconds: retryAfter },
      },
    });

    // The organisation has used 3 of its 5 (the refused request is not counted against it).
    expect((await listTools(b, 1)).status).toBe(200);
    expect((await listTools(b, 2)).status).toBe(200);
    const overOrganization = await listTools(b, 3);
    expect(overOrganization.status).toBe(429);
    expect(overOrganization.headers['retry-after']).toMatch(/^\d+$/);
    expect(overOrganization.body.error.data).toMatchObject({ code: 'rate_limited', limit: 'organization' });
    expect(overOrganization.body.error.message).toMatch(/^Too many requests for this token's organisation: at most 5 per window/);

    expect((await listTools(c, 1)).status).toBe(200);
  });

  it('counts only requests that carry a valid agent token (a refused credential is a 401, not a count)', async () => {
    const org = await createOrganization(t.dataSource);
    const token = await tokenIn(org.id);
    await awayFromWindowEnd();
    for (let i = 0; i < 5; i++) {
      await request(t.baseUrl).post('/api/mcp').set('Authorization', 'Bearer dga_nope').send({ jsonrpc: '2.0', id: i, method: 'tools/list' }).expect(401);
    }
    expect((await listTools(token, 1)).status).toBe(200);
  });
  /** One HTTP request carrying `messages` (a 2025-03-26 batch when it is an array). */
  function post(token: string, messages: unknown) {
    return request(t.baseUrl)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', '2025-03-26')
      .send(messages as object);
  }
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_project', arguments: {} } });

  it('counts each request of a batch: a batch that does not fit is refused whole and counts nothing; notifications are not counted', async () => {
    const org = await createOrganization(t.dataSource);
    const token = await tokenIn(org.id);
    await awayFromWindowEnd();

    // Four tool calls in one HTTP request are four against a limit of three: refused, none run.
    const tooMany = await post(token, [call(1), call(2), call(3), call(4)]);
    expect(tooMany.status).toBe(429);
    expect(tooMany.headers['retry-after']).toMatch(/^\d+$/);
    expect(tooMany.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'rate_limited', limit: 'token' } } });
    // Nothing ran, so nothing was recorded but the refusal itself: one aggregate (SPEC §10), written within 200 ms.
    const refusals = async () =>
      t.dataSource.query(`SELECT action, metadata->>'count' AS count, metadata->>'reason' AS reason FROM audit_events WHERE organization_id = $1`, [org.id]);
    let events = await refusals();
    while (events.length === 0) events = await refusals();
    expect(events).toEqual([{ action: 'mcp.refused', count: '1', reason: 'rate_limited' }]);

    // A notification alone is not a request: it spends nothing.
    const notified = await post(token, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notified.status).toBe(202);

    // Three fit, with their three answers; the budget is then spent.
    const three = await post(token, [call(1), call(2), call(3)]);
    expect(three.status).toBe(200);
    expect(three.text.match(/"result"/g)).toHaveLength(3);
    expect((await post(token, call(4))).status).toBe(429);
  });

  it('counts per grant: a refreshed access token spends the same budget as the one it replaced', async () => {
    const connected = await connectClient(t);
    await awayFromWindowEnd();
    for (let i = 1; i <= 3; i++) expect((await listTools(connected.accessToken, i)).status).toBe(200);
    expect((await listTools(connected.accessToken, 4)).status).toBe(429);

    const refreshed = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: connected.refreshToken, client_id: connected.client.client_id });
    expect(refreshed.status).toBe(200);
    const fresh = refreshed.body.access_token as string;
    expect(fresh).not.toBe(connected.accessToken);
    const after = await listTools(fresh, 5);
    expect(after.status).toBe(429);
    expect(after.body.error.data).toMatchObject({ code: 'rate_limited', limit: 'token' });
  });
});
