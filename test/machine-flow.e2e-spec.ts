import { randomUUID } from 'node:crypto';
import { ProtocolError } from '@modelcontextprotocol/client';
import request from 'supertest';
import { invalidTokenChallenge, MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY } from './fixtures/mcp-401';
import { connectClient, ConnectedClient, MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

const TASK_TOOLS = ['list_tasks', 'get_task', 'create_task', 'update_task', 'delete_task'];
const NOT_FOUND = {
  content: [{ type: 'text', text: 'Task not found' }],
  isError: true,
  _meta: { 'agent-gateway/error': { code: 'not_found' } },
};

type Task = { id: string; projectId: string; title: string; description: string | null; status: string };

/**
 * The machine flow of the seed (Rules 6 and 7) end to end, over HTTP and the official MCP
 * client on a real port: an administrator creates a service key, derives one token per
 * project, the machines call task capabilities, isolation holds, and revoking the key shuts
 * both machines out at their next request.
 */
describe('machine flow: service key → derived project tokens → task capabilities', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe.each([
    ['2025-11-25', 'an admin session'],
    ['2025-11-25', 'an rk_ key with service_keys:write'],
    [MODERN_VERSION, 'an admin session'],
    [MODERN_VERSION, 'an rk_ key with service_keys:write'],
  ])('protocol %s, administrator using %s', (version, adminKind) => {
    it('plays the whole flow', async () => {
      // An administrator signs up (a new organisation), logs in and creates two projects.
      const email = `admin-${randomUUID().slice(0, 8)}@example.test`;
      const password = 'correct horse battery staple';
      const signup = await request(t.baseUrl)
        .post('/api/auth/signup')
        .send({ email, password, name: 'Ada Admin', organizationName: 'Machines Inc' })
        .expect(201);
      const organization: { id: string } = signup.body.organization;
      const session: string = (await request(t.baseUrl).post('/api/auth/login').send({ email, password }).expect(200)).body.accessToken;
      const asAdmin = (method: 'get' | 'post', path: string) =>
        request(t.baseUrl)[method](`/api/organizations/${organization.id}${path}`).set('Authorization', `Bearer ${session}`);
      const projectA: { id: string } = (await asAdmin('post', '/projects').send({ name: 'A' }).expect(201)).body;
      const projectB: { id: string } = (await asAdmin('post', '/projects').send({ name: 'B' }).expect(201)).body;
      // The machine flow runs on the session, or on an rk_ key that holds only service_keys:write.
      const credential: string = adminKind.startsWith('an rk_')
        ? (await asAdmin('post', '/api-keys').send({ name: 'provisioning', permissions: ['service_keys:write'] }).expect(201)).body.key
        : session;
      const rest = (method: 'get' | 'post', path: string) =>
        request(t.baseUrl)[method](`/api/organizations/${organization.id}${path}`).set('Authorization', `Bearer ${credential}`);

      // (a) a service key; (b) one token per project, the secret returned once.
      const key = (await rest('post', '/agent-service-keys').send({ name: 'automation' }).expect(201)).body;
      const derivedA = (await rest('post', `/agent-service-keys/${key.id}/tokens`).send({ projectId: projectA.id }).expect(201)).body;
      const derivedB = (await rest('post', `/agent-service-keys/${key.id}/tokens`).send({ projectId: projectB.id }).expect(201)).body;
      expect(derivedA.projectId).toBe(projectA.id);
      expect(derivedB.projectId).toBe(projectB.id);

      // (c) the machines send their tokens: A as a Bearer token, B in x-agent-token.
      const a = await connectClient(t.baseUrl, version, { Authorization: `Bearer ${derivedA.token}` });
      const b = await connectClient(t.baseUrl, version, { 'x-agent-token': derivedB.token });
      try {
        expect(a.client.getNegotiatedProtocolVersion()).toBe(version);
        const { tools } = await a.client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['get_project', ...TASK_TOOLS]));
        for (const tool of tools.filter((x) => TASK_TOOLS.includes(x.name))) {
          expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
          expect(tool.description?.length).toBeGreaterThan(40);
        }

        // A creates and updates tasks in project A.
        const first = await call<{ task: Task }>(a, 'create_task', { title: 'Ship the release', description: 'Tag and publish' });
        expect(first.task).toMatchObject({
          projectId: projectA.id,
          title: 'Ship the release',
          description: 'Tag and publish',
          status: 'todo',
        });
        const second = await call<{ task: Task }>(a, 'create_task', { title: 'Write release notes' });
        const updated = await call<{ task: Task }>(a, 'update_task', { id: first.task.id, status: 'in_progress', title: 'Ship 1.0' });
        expect(updated.task).toMatchObject({ id: first.task.id, title: 'Ship 1.0', status: 'in_progress', description: 'Tag and publish' });
        const listA = await call<{ tasks: Task[]; nextCursor: string | null }>(a, 'list_tasks', {});
        expect(listA.tasks.map((x) => x.id)).toEqual([first.task.id, second.task.id]);
        expect(listA.nextCursor).toBeNull();
        expect(await call(a, 'list_tasks', { status: 'in_progress' })).toMatchObject({ tasks: [{ id: first.task.id }] });

        // B cannot see, read, change or delete them: each answer is the same "not found" as
        // for a task that does not exist.
        expect(await call(b, 'list_tasks', {})).toEqual({ tasks: [], nextCursor: null });
        const missing = '00000000-0000-4000-8000-000000000000';
        for (const id of [first.task.id, second.task.id, missing, 'not-a-task-id']) {
          expect(await toolError(b, 'get_task', { id })).toEqual(NOT_FOUND);
          expect(await toolError(b, 'update_task', { id, status: 'done' })).toEqual(NOT_FOUND);
          expect(await toolError(b, 'delete_task', { id })).toEqual(NOT_FOUND);
        }
        const ofB = await call<{ task: Task }>(b, 'create_task', { title: 'B’s own task' });
        expect(ofB.task.projectId).toBe(projectB.id);
        expect(await toolError(b, 'get_task', { id: first.task.id })).toEqual(NOT_FOUND);
        expect((await call<{ tasks: Task[] }>(a, 'list_tasks', {})).tasks.map((x) => x.id)).toEqual([first.task.id, second.task.id]);
        expect(await call(a, 'get_task', { id: first.task.id })).toEqual(updated);

        // A projectId argument is refused as invalid params, and nothing is written.
        for (const [name, args] of [
          ['create_task', { title: 'Sneaky', projectId: projectB.id }],
          ['list_tasks', { projectId: projectB.id }],
          ['get_task', { id: ofB.task.id, projectId: projectB.id }],
        ] as const) {
          const refusal = await a.client.callTool({ name, arguments: args }).catch((e: unknown) => e);
          expect(refusal).toBeInstanceOf(ProtocolError);
          expect((refusal as ProtocolError).code).toBe(-32602);
          expect((refusal as ProtocolError).message).toContain('projectId');
        }
        const rows: { project_id: string; title: string; status: string }[] = await t.dataSource.query(
          'SELECT project_id, title, status FROM tasks WHERE project_id = ANY($1) ORDER BY created_at, id',
          [[projectA.id, projectB.id]],
        );
        expect(rows).toEqual([
          { project_id: projectA.id, title: 'Ship 1.0', status: 'in_progress' },
          { project_id: projectA.id, title: 'Write release notes', status: 'todo' },
          { project_id: projectB.id, title: 'B’s own task', status: 'todo' },
        ]);

        // Rule 7: revoking the key revokes both tokens; each machine's next request gets the
        // seed's exact 401.
        const revoked = (await rest('post', `/agent-service-keys/${key.id}/revoke`).expect(200)).body;
        expect(revoked).toMatchObject({ id: key.id, status: 'revoked', revokedTokens: 2 });
        for (const machine of [a, b]) {
          const before = machine.exchanges.length;
          await expect(machine.client.callTool({ name: 'list_tasks', arguments: {} })).rejects.toThrow();
          const next = machine.exchanges[before];
          expect(next.status).toBe(401);
          expect(next.responseHeaders['www-authenticate']).toBe(invalidTokenChallenge(t.baseUrl));
        }
        for (const headers of [{ Authorization: `Bearer ${derivedA.token}` }, { 'x-agent-token': derivedB.token }]) {
          const res = await request(t.baseUrl)
            .post('/api/mcp')
            .set(headers)
            .set('Accept', 'application/json, text/event-stream')
            .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_tasks', arguments: {} } })
            .expect(401);
          expect(res.headers['www-authenticate']).toBe(invalidTokenChallenge(t.baseUrl));
          expect(res.body).toEqual(MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY);
        }
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});

/** Calls a tool that must succeed and returns its structured result. */
async function call<T = Record<string, unknown>>(machine: ConnectedClient, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await machine.client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.structuredContent) }]);
  return result.structuredContent as T;
}

/**
 * Calls a tool expected to fail and returns its result without the server-info `_meta` entry
 * that 2026-07-28 answers carry, so answers compare the same in both generations.
 */
async function toolError(machine: ConnectedClient, name: string, args: Record<string, unknown>) {
  const result = await machine.client.callTool({ name, arguments: args });
  const { 'io.modelcontextprotocol/serverInfo': _serverInfo, ...meta } = result._meta ?? {};
  return { ...result, _meta: meta };
}
