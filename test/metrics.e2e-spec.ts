import { randomBytes, randomUUID } from 'node:crypto';
import { createProjectWithToken } from './factories';
import { createApiKey, signupOverHttp } from './factories/rest';
import { connectClient, MODERN_VERSION } from './helpers/mcp';
import { freePort } from './helpers/postgres-server';
import { startTestApp, TestApp } from './helpers/test-app';

const METRICS_TOKEN = randomBytes(24).toString('base64url');

/** Prometheus text: the value of one series, or undefined when absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The series of the service's own request, MCP and credential metrics. */
function requestSeries(text: string): string[] {
  return text.split('\n').filter((l) => /^agent_gateway_(http|mcp|credential|revocation)/.test(l));
}

describe('GET /metrics', () => {
  let t: TestApp;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await freePort();
    t = await startTestApp({ METRICS_TOKEN, METRICS_PORT: String(metricsPort) });
  });
  afterAll(() => t?.close());

  const scrape = async () => {
    const res = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('is closed without the token; with it, Prometheus text with process and pool metrics', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${METRICS_TOKEN}`, `Bearer ${METRICS_TOKEN}x`]) {
      const res = await fetch(`${t.baseUrl}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.text()).not.toContain('agent_gateway_');
    }
    const text = await scrape();
    expect(text).toMatch(/^agent_gateway_process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^agent_gateway_nodejs_eventloop_lag_seconds /m);
    expect(valueOf(text, 'agent_gateway_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^agent_gateway_db_pool_waiting_requests \d/m);
  });

  it('is served without a token on METRICS_PORT, on 127.0.0.1 only', async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('agent_gateway_http_requests_total');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
  });

  it('counts requests by route template and status, with a latency histogram', async () => {
    const before = await scrape();
    const org = randomUUID();
    for (let i = 0; i < 3; i++) await fetch(`${t.baseUrl}/api/organizations/${org}/projects?page=${i}`);
    const text = await scrape();
    const series = 'agent_gateway_http_requests_total{method="GET",route="/api/organizations/:orgId/projects",status="401"}';
    expect((valueOf(text, series) ?? 0) - (valueOf(before, series) ?? 0)).toBe(3);
    expect(text).toMatch(/^agent_gateway_http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/api\/organizations\/:orgId\/projects"\} \d+/m);
    expect(text).not.toContain(org);
  });

  it('counts MCP calls by method, tool and outcome, and credential refusals by kind and reason', async () => {
    const { token } = await createProjectWithToken(t.dataSource);
    const mcp = await connectClient(t.baseUrl, MODERN_VERSION, { authorization: `Bearer ${token}` });
    await mcp.client.callTool({ name: 'get_project', arguments: {} });
    await mcp.client.callTool({ name: 'get_project', arguments: { projectId: 'x' } }).catch(() => undefined);
    await mcp.client.callTool({ name: `no_such_tool_${randomUUID().slice(0, 6)}`, arguments: {} }).catch(() => undefined);
    await mcp.close();
    await fetch(`${t.baseUrl}/api/mcp`, { method: 'POST', headers: { authorization: 'Bearer dga_not_a_real_token', 'content-type': 'application/json' }, body: '{}' });
    await fetch(`${t.baseUrl}/api/permissions`);
    const text = await scrape();
    expect(valueOf(text, 'agent_gateway_mcp_calls_total{method="tools/call",tool="get_project",outcome="ok"}')).toBe(1);
    expect(valueOf(text, 'agent_gateway_mcp_calls_total{method="tools/call",tool="get_project",outcome="invalid_arguments"}')).toBe(1);
    expect(valueOf(text, 'agent_gateway_mcp_calls_total{method="tools/call",tool="unknown",outcome="unknown_tool"}')).toBe(1);
    expect(valueOf(text, 'agent_gateway_credential_refusals_total{kind="agent_token",reason="invalid"}')).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'agent_gateway_credential_refusals_total{kind="none",reason="missing"}')).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('no_such_tool');
  });

  it('counts revocations', async () => {
    const admin = await signupOverHttp(t);
    const key = await createApiKey(t.dataSource, admin.organization.id, ['projects:read']);
    const res = await fetch(`${t.baseUrl}/api/organizations/${admin.organization.id}/api-keys/${key.id}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.accessToken}` },
    });
    expect(res.status).toBe(200);
    expect(valueOf(await scrape(), 'agent_gateway_revocations_total{kind="api_key"}')).toBe(1);
  });

  it('1,000 random paths add no series: labels are route templates and fixed names', async () => {
    const randomParts: string[] = [];
    const randomPath = () => {
      const id = randomBytes(6).toString('hex');
      const uuid = randomUUID();
      randomParts.push(id, uuid);
      const paths = [
        `/${id}`,
        `/api/${id}/${id}?token=${id}`,
        `/api/organizations/${uuid}/projects`,
        `/api/organizations/${uuid}/projects/${uuid}`,
        `/api/organizations/${id}/members?x=${id}`,
        `/.well-known/${id}`,
      ];
      return paths[Math.floor(Math.random() * paths.length)];
    };
    const send = async (n: number, seen: string[]) => {
      for (let i = 0; i < n; i += 25) {
        await Promise.all(
          Array.from({ length: Math.min(25, n - i) }, async () => {
            const path = randomPath();
            seen.push(path);
            const res = await fetch(`${t.baseUrl}${path}`, { method: Math.random() < 0.5 ? 'GET' : 'POST' });
            await res.arrayBuffer();
          }),
        );
      }
    };
    await send(120, []);
    const before = requestSeries(await scrape()).map((l) => l.replace(/ [^ ]+$/, ''));
    const sent: string[] = [];
    await send(1000, sent);
    const after = await scrape();
    expect(requestSeries(after).map((l) => l.replace(/ [^ ]+$/, '')).sort()).toEqual([...before].sort());
    expect(sent).toHaveLength(1000);
    const leaked = randomParts.filter((part) => after.includes(part));
    expect(leaked).toEqual([]);
  }, 120_000);
});
