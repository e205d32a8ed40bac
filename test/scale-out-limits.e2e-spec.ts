import { randomBytes, randomUUID } from 'node:crypto';
import { GatewayProcess, startGatewayProcess } from './helpers/gateway-process';
import { listToolsRaw } from './helpers/mcp-raw';
import { freePort } from './helpers/postgres-server';
import { ClonedDatabase, cloneTemplateDatabase } from './helpers/template-database';
import { readTestState, testDatabaseKind } from './helpers/test-state';

const LIMIT = 100;

/**
 * SPEC §9: the MCP request limits hold across replicas (docs/operations.md, "Request limits"):
 * two service processes on one PostgreSQL share each token's budget, so requests spread over
 * both get the limit once, not once per instance. PostgreSQL only (two processes cannot share
 * the embedded database).
 */
const onPostgres = testDatabaseKind() === 'postgres';
(onPostgres ? describe : describe.skip)('MCP request limits across two instances on one PostgreSQL', () => {
  let a: GatewayProcess;
  let b: GatewayProcess;
  let database: ClonedDatabase | undefined;

  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    database = await cloneTemplateDatabase(postgres.port, 'limits');
    const [portA, portB] = [await freePort(), await freePort()];
    const shared = {
      BASE_URL: `http://127.0.0.1:${portA}`,
      DATABASE_URL: database.url,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      MCP_RATE_LIMIT_PER_TOKEN: String(LIMIT),
      MCP_RATE_LIMIT_PER_ORGANIZATION: '100000',
      MCP_RATE_LIMIT_WINDOW_SECONDS: '60',
    };
    [a, b] = await Promise.all([startGatewayProcess(portA, shared), startGatewayProcess(portB, shared)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  async function json(url: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
    const res = await fetch(`${url}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it(`gives a token limited to ${LIMIT} per window ${LIMIT} ± 10 answers, not twice that, from requests spread over both`, async () => {
    const signup = await json(a.url, '/api/auth/signup', {
      method: 'POST',
      body: { email: `limits-${randomUUID().slice(0, 8)}@example.test`, password: `pw-${randomUUID()}`, name: 'Lee Limits', organizationName: 'Limits org' },
    });
    expect(signup.status).toBe(201);
    const orgPath = `/api/organizations/${signup.body.organization.id}`;
    const session = signup.body.accessToken as string;
    const project = await json(a.url, `${orgPath}/projects`, { method: 'POST', token: session, body: { name: 'Limited' } });
    const key = await json(b.url, `${orgPath}/agent-service-keys`, { method: 'POST', token: session, body: { name: 'limited bot' } });
    const derived = await json(a.url, `${orgPath}/agent-service-keys/${key.body.id}/tokens`, { method: 'POST', token: session, body: { projectId: project.body.id } });
    expect(derived.status).toBe(201);
    const token = derived.body.token as string;

    // The windows are aligned on the clock: start well inside one, so all requests fall in it.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));

    // 2 × the limit, alternating between the instances, 8 in flight at a time.
    const statuses: number[] = [];
    const urls = Array.from({ length: 2 * LIMIT }, (_, i) => (i % 2 ? b.url : a.url));
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let url = urls.shift(); url; url = urls.shift()) {
          const res = await listToolsRaw(url, token);
          await res.text();
          statuses.push(res.status);
        }
      }),
    );
    const answered = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(LIMIT - 10);
    expect(answered).toBeLessThanOrEqual(LIMIT + 10);
  }, 60_000);
});
