import { InsufficientScopeError } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import request from 'supertest';
import { AGENT_PERMISSION_NAMES, AgentPermission } from '@app/capabilities';
import { addMember, createAgentToken, createOrganization, createProject } from './factories';
import { createOrganizationWithAdmin } from './factories/machine';
import { connectClient, ConnectedClient, MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

type Status = 'todo' | 'in_progress' | 'done';
type Task = { id: string; projectId: string; title: string; status: Status };

type Op =
  | { kind: 'create'; title: string }
  | { kind: 'list'; status?: Status }
  | { kind: 'get'; ref: number }
  | { kind: 'update'; ref: number; status: Status; title?: string }
  | { kind: 'delete'; ref: number };
type Command = { token: number; op: Op };

const NEEDS: Record<Op['kind'], AgentPermission> = {
  create: 'tasks:write',
  list: 'tasks:read',
  get: 'tasks:read',
  update: 'tasks:write',
  delete: 'tasks:delete',
};
const TOOL: Record<Op['kind'], string> = {
  create: 'create_task',
  list: 'list_tasks',
  get: 'get_task',
  update: 'update_task',
  delete: 'delete_task',
};

const status = fc.constantFrom<Status>('todo', 'in_progress', 'done');
const title = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0 && !s.includes('\u0000'));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), title }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('list' as const), status: fc.option(status, { nil: undefined }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('get' as const), ref: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('update' as const), ref: fc.nat(), status, title: fc.option(title, { nil: undefined }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), ref: fc.nat() }) },
);
/** Mostly tokens that may do everything (so calls reach the data), sometimes any subset. */
const permissions: fc.Arbitrary<AgentPermission[]> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<AgentPermission[]>([...AGENT_PERMISSION_NAMES]) },
  { weight: 1, arbitrary: fc.subarray(AGENT_PERMISSION_NAMES) },
);
/** Organisations → projects → extra tokens' permissions; at least two projects in all. */
const world = fc
  .array(fc.array(fc.array(permissions, { maxLength: 1 }), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 })
  .filter((orgs) => orgs.flat().length >= 2);
const commands = fc.array(fc.record({ token: fc.nat(), op }), { minLength: 5, maxLength: 25 });

/**
 * Property: whatever organisations, projects and tokens exist and whatever tool calls the
 * tokens make (including on ids of other projects' tasks), no call reads or changes another
 * project's data. A model of the tasks predicts every answer; the database must end equal to it.
 */
describe('project isolation (property-based, through the MCP endpoint)', () => {
  let t: TestApp;
  let admin: { id: string; session: string };
  beforeAll(async () => {
    t = await startTestApp();
    // one administrator, made a member of every generated organisation (password hashing is slow)
    admin = (await createOrganizationWithAdmin(t.app, t.dataSource)).admin;
  });
  afterAll(() => t.close());

  it('no tool call reaches another project’s tasks', async () => {
    await fc.assert(
      fc.asyncProperty(world, commands, fc.constantFrom('2025-11-25', MODERN_VERSION), async (shape, script, version) => {
        const tokens = await buildWorld(shape);
        const clients = new Map<number, ConnectedClient>();
        const model = new Map<string, Task>();
        const known: string[] = ['00000000-0000-4000-8000-000000000000'];
        try {
          for (const { token: pick, op: o } of script) {
            const index = pick % tokens.length;
            const token = tokens[index];
            let client = clients.get(index);
            if (!client) {
              client = await connectClient(t.baseUrl, version, { Authorization: `Bearer ${token.secret}` });
              clients.set(index, client);
            }
            const ref = 'ref' in o ? known[o.ref % known.length] : undefined;
            const args =
              o.kind === 'create' ? { title: o.title }
              : o.kind === 'list' ? { limit: 100, ...(o.status ? { status: o.status } : {}) }
              : o.kind === 'update' ? { id: ref, status: o.status, ...(o.title ? { title: o.title } : {}) }
              : { id: ref };

            if (!token.permissions.includes(NEEDS[o.kind])) {
              await expect(client.client.callTool({ name: TOOL[o.kind], arguments: args })).rejects.toBeInstanceOf(InsufficientScopeError);
              continue;
            }
            const result = await client.client.callTool({ name: TOOL[o.kind], arguments: args });
            const own = ref !== undefined && model.get(ref)?.projectId === token.projectId ? model.get(ref) : undefined;
            switch (o.kind) {
              case 'create': {
                const task = (result.structuredContent as { task: Task }).task;
                expect(task.projectId).toBe(token.projectId);
                model.set(task.id, { id: task.id, projectId: token.projectId, title: o.title.trim(), status: 'todo' });
                known.push(task.id);
                break;
              }
              case 'list': {
                const listed = (result.structuredContent as { tasks: Task[] }).tasks;
                const expected = [...model.values()].filter((x) => x.projectId === token.projectId && (!o.status || x.status === o.status));
                expect(listed.map((x) => x.id)).toEqual(expected.map((x) => x.id));
                for (const x of listed) expect(x.projectId).toBe(token.projectId);
                break;
              }
              case 'get':
              case 'update':
              case 'delete': {
                if (!own) {
                  expect(result.isError).toBe(true);
                  expect(result.content).toEqual([{ type: 'text', text: 'Task not found' }]);
                  break;
                }
                expect(result.isError).toBeFalsy();
                if (o.kind === 'delete') {
                  model.delete(own.id);
                  break;
                }
                if (o.kind === 'update') {
                  own.status = o.status;
                  if (o.title) own.title = o.title.trim();
                }
                expect((result.structuredContent as { task: Task }).task).toMatchObject({ ...own });
              }
            }
          }
          const projectIds = [...new Set(tokens.map((x) => x.projectId))];
          const rows: { id: string; project_id: string; title: string; status: Status }[] = await t.dataSource.query(
            'SELECT id, project_id, title, status FROM tasks WHERE project_id = ANY($1) ORDER BY created_at, id',
            [projectIds],
          );
          expect(rows.map((r) => ({ id: r.id, projectId: r.project_id, title: r.title, status: r.status }))).toEqual([...model.values()]);
        } finally {
          for (const c of clients.values()) await c.close();
        }
      }),
      { numRuns: 12, endOnFailure: true },
    );
  });

  /**
   * Each organisation gets an administrator, one or two projects, and a service key whose
   * derived tokens (all permissions) are made over REST; each project may also get OAuth-style
   * tokens with the generated permission sets.
   */
  async function buildWorld(shape: AgentPermission[][][][]) {
    const tokens: { secret: string; projectId: string; permissions: AgentPermission[] }[] = [];
    for (const projects of shape) {
      const organization = await createOrganization(t.dataSource);
      await addMember(t.dataSource, organization.id, admin.id, 'admin');
      const auth = { Authorization: `Bearer ${admin.session}` };
      const key = (await request(t.baseUrl).post(`/api/organizations/${organization.id}/agent-service-keys`).set(auth).send({ name: 'p' }).expect(201))
        .body;
      for (const permissionSets of projects) {
        const project = await createProject(t.dataSource, organization.id);
        const derived = (
          await request(t.baseUrl)
            .post(`/api/organizations/${organization.id}/agent-service-keys/${key.id}/tokens`)
            .set(auth)
            .send({ projectId: project.id })
            .expect(201)
        ).body;
        tokens.push({ secret: derived.token, projectId: project.id, permissions: derived.permissions });
        for (const permissions of permissionSets) {
          const { token } = await createAgentToken(t.dataSource, project, { permissions });
          tokens.push({ secret: token, projectId: project.id, permissions });
        }
      }
    }
    return tokens;
  }
});
