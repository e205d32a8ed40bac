import { InsufficientScopeError, ProtocolError } from '@modelcontextprotocol/client';
import { AgentPermission } from '@app/capabilities';
import { TokenUsageRecorder } from '@app/credentials';
import { createAgentToken, createProjectWithToken } from './factories';
import { insufficientScopeChallenge } from './fixtures/mcp-401';
import { connectClient, ConnectedClient, MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

type Task = { id: string; projectId: string; title: string; description: string | null; status: string; createdAt: string; updatedAt: string };

const TOOL_PERMISSIONS: Record<string, AgentPermission> = {
  list_tasks: 'tasks:read',
  get_task: 'tasks:read',
  create_task: 'tasks:write',
  update_task: 'tasks:write',
  delete_task: 'tasks:delete',
};

describe('task capabilities (SPEC §3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function machine(version = '2025-06-18', permissions?: AgentPermission[]) {
    const { project, id, token } = await createProjectWithToken(t.dataSource, permissions ? { permissions } : {});
    const connected = await connectClient(t.baseUrl, version, { Authorization: `Bearer ${token}` });
    return { project, tokenId: id, token, ...connected };
  }

  async function ok<T>(m: ConnectedClient, name: string, args: Record<string, unknown>): Promise<T> {
    const result = await m.client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as T;
  }

  async function invalid(m: ConnectedClient, name: string, args: Record<string, unknown>): Promise<ProtocolError> {
    const error = await m.client.callTool({ name, arguments: args }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
    return error as ProtocolError;
  }

  describe.each(['2025-06-18', MODERN_VERSION])('permissions, protocol %s', (version) => {
    it.each<[string, AgentPermission[]]>([
      ['read only', ['tasks:read']],
      ['write only', ['tasks:write']],
      ['delete only', ['tasks:delete']],
      ['project only', ['project:read']],
      ['read and delete', ['tasks:read', 'tasks:delete']],
    ])('%s: lists exactly the tools its permissions open, refuses the rest with 403 insufficient_scope', async (_label, permissions) => {
      const m = await machine(version, permissions);
      try {
        const { tools } = await m.client.listTools();
        const listed = tools.map((x) => x.name).filter((n) => n in TOOL_PERMISSIONS).sort();
        const open = Object.keys(TOOL_PERMISSIONS).filter((n) => permissions.includes(TOOL_PERMISSIONS[n])).sort();
        expect(listed).toEqual(open);
        for (const name of Object.keys(TOOL_PERMISSIONS).filter((n) => !open.includes(n))) {
          const before = m.exchanges.length;
          const refusal = await m.client
            .callTool({ name, arguments: name === 'list_tasks' ? {} : { id: '00000000-0000-4000-8000-000000000000', title: 'x' } })
            .catch((e: unknown) => e);
          expect(refusal).toBeInstanceOf(InsufficientScopeError);
          expect((refusal as InsufficientScopeError).requiredScope).toBe(TOOL_PERMISSIONS[name]);
          const exchange = m.exchanges[before];
          expect(exchange.status).toBe(403);
          expect(exchange.responseHeaders['www-authenticate']).toBe(insufficientScopeChallenge(t.baseUrl, TOOL_PERMISSIONS[name]));
        }
        const [{ count }] = await t.dataSource.query('SELECT count(*)::int AS count FROM tasks WHERE project_id = $1', [m.project.id]);
        expect(count).toBe(0);
      } finally {
        await m.close();
      }
    });
  });

  describe('create, read, update, delete', () => {
    let m: Awaited<ReturnType<typeof machine>>;
    beforeAll(async () => {
      m = await machine();
    });
    afterAll(() => m.close());

    it('creates a task with status todo, reads, updates and deletes it', async () => {
      const { task } = await ok<{ task: Task }>(m, 'create_task', { title: '  Trimmed title  ' });
      expect(task).toEqual({
        id: expect.any(String),
        projectId: m.project.id,
        title: 'Trimmed title',
        description: null,
        status: 'todo',
        createdAt: expect.any(String),
        updatedAt: task.createdAt,
      });
      expect(await ok(m, 'get_task', { id: task.id })).toEqual({ task });
      const changed = await ok<{ task: Task }>(m, 'update_task', { id: task.id, description: 'details', status: 'done' });
      expect(changed.task).toMatchObject({ id: task.id, title: 'Trimmed title', description: 'details', status: 'done' });
      expect(Date.parse(changed.task.updatedAt)).toBeGreaterThanOrEqual(Date.parse(task.updatedAt));
      const cleared = await ok<{ task: Task }>(m, 'update_task', { id: task.id, description: null });
      expect(cleared.task.description).toBeNull();
      expect(await ok(m, 'delete_task', { id: task.id })).toEqual({ deleted: true, id: task.id });
      const again = await m.client.callTool({ name: 'delete_task', arguments: { id: task.id } });
      expect(again.isError).toBe(true);
      expect(again.content).toEqual([{ type: 'text', text: 'Task not found' }]);
      const read = await m.client.callTool({ name: 'get_task', arguments: { id: task.id } });
      expect(read.isError).toBe(true);
    });

    it('accepts the limits exactly: a 200-character title and a 10,000-character description', async () => {
      const title = 't'.repeat(200);
      const description = 'd'.repeat(10_000);
      const { task } = await ok<{ task: Task }>(m, 'create_task', { title, description });
      expect(task.title).toBe(title);
      expect(task.description).toBe(description);
    });

    it.each<[string, string, Record<string, unknown>, RegExp]>([
      ['an empty title', 'create_task', { title: '' }, /title/],
      ['a blank title', 'create_task', { title: '   ' }, /title/],
      ['a 201-character title', 'create_task', { title: 'x'.repeat(201) }, /title/],
      ['a 10,001-character description', 'create_task', { title: 'x', description: 'd'.repeat(10_001) }, /description/],
      ['a NUL character', 'create_task', { title: 'a\u0000b' }, /title/],
      ['no title', 'create_task', { description: 'x' }, /title/],
      ['a status on create', 'create_task', { title: 'x', status: 'done' }, /status/],
      ['an unknown status', 'update_task', { id: '00000000-0000-4000-8000-000000000000', status: 'blocked' }, /status/],
      ['no change at all', 'update_task', { id: '00000000-0000-4000-8000-000000000000' }, /at least one/],
      ['an unknown field', 'update_task', { id: '00000000-0000-4000-8000-000000000000', title: 'x', priority: 1 }, /priority/],
      ['a limit of 0', 'list_tasks', { limit: 0 }, /limit/],
      ['a limit of 101', 'list_tasks', { limit: 101 }, /limit/],
      ['a fractional limit', 'list_tasks', { limit: 2.5 }, /limit/],
      ['a cursor this service never issued', 'list_tasks', { cursor: 'not-a-cursor' }, /cursor/],
      ['a forged cursor', 'list_tasks', { cursor: Buffer.from('["2024-01-01T00:00:00.000000Z","nope"]').toString('base64url') }, /cursor/],
      ['a projectId', 'list_tasks', { projectId: '00000000-0000-4000-8000-000000000000' }, /projectId/],
      ['a number as id', 'get_task', { id: 42 }, /id/],
    ])('refuses %s as invalid params and writes nothing', async (_label, name, args, message) => {
      const before = await t.dataSource.query('SELECT id, title, status FROM tasks WHERE project_id = $1 ORDER BY id', [m.project.id]);
      const error = await invalid(m, name, args);
      expect(error.message).toMatch(message);
      expect(await t.dataSource.query('SELECT id, title, status FROM tasks WHERE project_id = $1 ORDER BY id', [m.project.id])).toEqual(before);
    });
  });

  describe('list_tasks pagination', () => {
    it('walks every task exactly once, oldest first, with and without a status filter', async () => {
      const m = await machine(MODERN_VERSION);
      try {
        const created: Task[] = [];
        for (let i = 0; i < 7; i++) created.push((await ok<{ task: Task }>(m, 'create_task', { title: `task ${i}` })).task);
        for (const i of [1, 4, 5]) await ok(m, 'update_task', { id: created[i].id, status: 'done' });

        const walk = async (filter: Record<string, unknown>, limit: number) => {
          const seen: string[] = [];
          let cursor: string | null = null;
          let pages = 0;
          do {
            const page: { tasks: Task[]; nextCursor: string | null } = await ok(m, 'list_tasks', {
              ...filter,
              limit,
              ...(cursor ? { cursor } : {}),
            });
            expect(page.tasks.length).toBeLessThanOrEqual(limit);
            seen.push(...page.tasks.map((x) => x.id));
            cursor = page.nextCursor;
            pages++;
          } while (cursor);
          return { seen, pages };
        };
        expect(await walk({}, 3)).toEqual({ seen: created.map((x) => x.id), pages: 3 });
        expect(await walk({}, 7)).toEqual({ seen: created.map((x) => x.id), pages: 1 });
        expect(await walk({ status: 'done' }, 2)).toEqual({ seen: [1, 4, 5].map((i) => created[i].id), pages: 2 });
        expect(await walk({ status: 'in_progress' }, 2)).toEqual({ seen: [], pages: 1 });
        const firstPage = await ok<{ tasks: Task[] }>(m, 'list_tasks', {});
        expect(firstPage.tasks).toHaveLength(7); // default limit 20
      } finally {
        await m.close();
      }
    });

    it('a cursor from one project reveals nothing in another', async () => {
      const a = await machine();
      const b = await machine();
      try {
        for (let i = 0; i < 3; i++) await ok(a, 'create_task', { title: `a${i}` });
        await ok(b, 'create_task', { title: 'b0' });
        const page = await ok<{ nextCursor: string }>(a, 'list_tasks', { limit: 1 });
        const fromB = await ok<{ tasks: Task[] }>(b, 'list_tasks', { cursor: page.nextCursor });
        expect(fromB.tasks.every((x) => x.projectId === b.project.id)).toBe(true);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  it('records lastUsedAt of the token used at the endpoint after the recorder flushes, not during the request', async () => {
    const m = await machine();
    try {
      await ok(m, 'list_tasks', {});
      const read = async () => (await t.dataSource.query('SELECT last_used_at FROM agent_tokens WHERE id = $1', [m.tokenId]))[0].last_used_at;
      expect(await read()).toBeNull();
      await t.app.get(TokenUsageRecorder).flush();
      expect(await read()).toBeInstanceOf(Date);
    } finally {
      await m.close();
    }
  });

  it('keeps a deleted project’s tasks out of reach even for a token that is still live', async () => {
    const m = await machine();
    try {
      const { task } = await ok<{ task: Task }>(m, 'create_task', { title: 'before deletion' });
      await t.dataSource.query('UPDATE projects SET deleted_at = now() WHERE id = $1', [m.project.id]);
      expect(await ok(m, 'list_tasks', {})).toEqual({ tasks: [], nextCursor: null });
      for (const [name, args] of [
        ['get_task', { id: task.id }],
        ['update_task', { id: task.id, title: 'x' }],
        ['delete_task', { id: task.id }],
        ['create_task', { title: 'after deletion' }],
      ] as const) {
        const result = await m.client.callTool({ name, arguments: args });
        expect(result.isError).toBe(true);
      }
      const rows = await t.dataSource.query('SELECT title FROM tasks WHERE project_id = $1', [m.project.id]);
      expect(rows).toEqual([{ title: 'before deletion' }]);
    } finally {
      await m.close();
    }
  });

  it('two tokens of one project see the same tasks', async () => {
    const m = await machine();
    const second = await createAgentToken(t.dataSource, { id: m.project.id, organizationId: m.project.organizationId });
    const other = await connectClient(t.baseUrl, MODERN_VERSION, { 'x-agent-token': second.token });
    try {
      const { task } = await ok<{ task: Task }>(m, 'create_task', { title: 'shared' });
      expect(await ok(other, 'get_task', { id: task.id })).toEqual({ task });
    } finally {
      await m.close();
      await other.close();
    }
  });
});
