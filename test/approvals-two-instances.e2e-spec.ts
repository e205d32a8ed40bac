import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { createTeam } from './factories/rest';
import { connectClient } from './helpers/mcp';
import { savePolicy } from './helpers/policy';
import { ClonedDatabase, cloneTemplateDatabase } from './helpers/template-database';
import { startTestApp, TestApp } from './helpers/test-app';
import { readTestState, testDatabaseKind } from './helpers/test-state';

/**
 * Approvals across two gateways on one PostgreSQL behind one public URL: an approved call retried
 * on both at once runs once, and a 2026-07-28 requestState minted by one is honoured by the other.
 * PostgreSQL only.
 */
const onPostgres = testDatabaseKind() === 'postgres';
(onPostgres ? describe : describe.skip)('approvals across two instances on one PostgreSQL', () => {
  let database: ClonedDatabase | undefined;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    database = await cloneTemplateDatabase(postgres.port, 'approvals');
    const shared = { DATABASE_URL: database.url, SESSION_SECRET: randomBytes(32).toString('hex'), SECRETS_KEYS: `k1:${randomBytes(32).toString('base64')}` };
    a = await startTestApp(shared);
    b = await startTestApp({ ...shared, BASE_URL: a.baseUrl });
  }, 120_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.drop();
  });

  async function setUp() {
    const team = await createTeam(a);
    const project = await createProject(a.dataSource, team.organization.id);
    const { accessToken } = await insertConnectedClient(a.dataSource, {
      userId: team.member.id,
      organizationId: team.organization.id,
      projectId: project.id,
      permissions: [...AGENT_PERMISSION_NAMES],
    });
    await savePolicy(a, team, [{ id: 'ask', tools: ['create_task'], effect: 'approve', approval: { approvers: 'admins' } }]);
    const approve = (id: string) =>
      request(b.baseUrl).post(`/api/organizations/${team.organization.id}/approvals/${id}/decision`).auth(team.admin.jwt, { type: 'bearer' }).send({ decision: 'approve' }).expect(200);
    const tasks = async () => ((await a.dataSource.query(`SELECT count(*)::int AS count FROM tasks WHERE project_id = $1`, [project.id])) as { count: number }[])[0].count;
    return { team, project, accessToken, approve, tasks };
  }

  it('two instances retrying an approved create_task at once make one task', async () => {
    const m = await setUp();
    const onA = await connectClient(a.baseUrl, '2025-06-18', { Authorization: `Bearer ${m.accessToken}` });
    const onB = await connectClient(b.baseUrl, '2025-06-18', { Authorization: `Bearer ${m.accessToken}` });
    try {
      for (let round = 0; round < 3; round++) {
        const args = { title: `Round ${round}` };
        const held = await onA.client.callTool({ name: 'create_task', arguments: args });
        const id = /\/approvals\/([0-9a-f-]{36})/.exec((held.content as { text: string }[])[0].text)![1];
        await m.approve(id);
        const results = await Promise.all([onA.client.callTool({ name: 'create_task', arguments: args }), onB.client.callTool({ name: 'create_task', arguments: args })]);
        expect(results.filter((r) => !r.isError)).toHaveLength(1);
        expect(await m.tasks()).toBe(round + 1);
        const [row] = await a.dataSource.query(`SELECT status FROM approvals WHERE id = $1`, [id]);
        expect(row.status).toBe('consumed');
      }
    } finally {
      await onA.close();
      await onB.close();
    }
  });

  it('a requestState minted by one instance is honoured by the other', async () => {
    const m = await setUp();
    const sent: { headers: Record<string, string>; body: { method?: string; params?: Record<string, unknown> } }[] = [];
    const keeping = async (input: string | URL | Request, init?: RequestInit) => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
      if (typeof init?.body === 'string') sent.push({ headers, body: JSON.parse(init.body) });
      return fetch(input, init);
    };
    const client = new Client({ name: 'two-instances', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${a.baseUrl}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${m.accessToken}` } }, fetch: keeping }));
    try {
      const waiting = await client.callTool({ name: 'create_task', arguments: { title: 'Across' } });
      expect((waiting.content as { text: string }[])[0].text).toMatch(/^Waiting for approval: /);
      const retry = sent.filter((s) => s.body.method === 'tools/call')[1];
      const state = retry.body.params!.requestState as string;
      const [{ id }] = await a.dataSource.query(`SELECT id FROM approvals WHERE organization_id = $1`, [m.team.organization.id]);
      // On the other instance, still pending: the same "waiting" answer (the state verified there).
      const stillWaiting = await request(b.baseUrl).post('/api/mcp').set(retry.headers).send({ ...retry.body, id: 7 }).expect(200);
      expect(stillWaiting.body.result.content[0].text).toBe(`Waiting for approval: ${a.baseUrl}/approvals/${id} — call again once it is approved.`);
      await m.approve(id);
      const ran = await request(b.baseUrl).post('/api/mcp').set(retry.headers).send({ ...retry.body, id: 8, params: { ...retry.body.params, requestState: state } }).expect(200);
      expect(ran.body.result.isError).toBeFalsy();
      expect(await m.tasks()).toBe(1);
    } finally {
      await client.close();
    }
  });
});
