import request from 'supertest';
import type { ProjectContext } from '@app/capabilities';
import { TasksRepository } from '@app/tasks';
import { createAgentToken } from './factories';
import { adminRest, signupOverHttp, SignedUp } from './factories/rest';
import { connectClient, ConnectedClient, MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

type AuditEvent = {
  projectId: string | null;
  actorType: string;
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  metadata: Record<string, unknown>;
};

/**
 * SPEC §8: every capability call that changes data is audited in the change's transaction —
 * project, the credential (the `dga_` token and its service key, or its OAuth grant and
 * client), the tool, the target and the outcome —, reads are recorded in batches (SPEC §10), and the organisation's
 * audit list filters by project, credential and action.
 */
describe('an audit of what agents changed', () => {
  let t: TestApp;
  let admin: SignedUp;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await signupOverHttp(t);
  });
  afterAll(() => t.close());

  const { org, post, get, serviceKeyToken } = adminRest(() => t.baseUrl, () => admin);
  const events = async (query: string): Promise<AuditEvent[]> => (await get(`/audit-events?${query}`).expect(200)).body.items;

  async function machine(name: string) {
    const { project, key, derived } = await serviceKeyToken(name, `${name} key`);
    const client = await connectClient(t.baseUrl, MODERN_VERSION, { Authorization: `Bearer ${derived.token}` });
    return { project, key, derived, client };
  }

  async function call(c: ConnectedClient, name: string, args: Record<string, unknown>) {
    return c.client.callTool({ name, arguments: args });
  }

  it("finds an agent's delete_task in the audit log with its token and key; reads are recorded too, as tool.called", async () => {
    const m = await machine('Audited');
    try {
      const created = (await call(m.client, 'create_task', { title: 'Remove me' })).structuredContent as { task: { id: string } };
      const taskId = created.task.id;
      await call(m.client, 'update_task', { id: taskId, status: 'done' });
      await call(m.client, 'get_task', { id: taskId });
      await call(m.client, 'list_tasks', {});
      expect((await call(m.client, 'delete_task', { id: taskId })).isError).toBeFalsy();
      expect((await call(m.client, 'delete_task', { id: taskId })).isError).toBe(true);

      const deletes = await events('action=capability.delete_task');
      const mine = deletes.filter((e) => e.targetId === taskId);
      expect(mine).toEqual([
        {
          ...mine[0],
          projectId: m.project.id,
          actorType: 'agent_token',
          actorId: m.derived.id,
          targetType: 'task',
          targetId: taskId,
          metadata: { tool: 'delete_task', outcome: 'not_found', serviceKeyId: m.key.id },
        },
        {
          ...mine[1],
          projectId: m.project.id,
          actorType: 'agent_token',
          actorId: m.derived.id,
          targetType: 'task',
          targetId: taskId,
          metadata: { tool: 'delete_task', outcome: 'succeeded', serviceKeyId: m.key.id },
        },
      ]);

      // Reads are written in batches, at most 200 ms after the call (docs/audit.md, "Loss").
      let byToken = await events(`credential=${m.derived.id}`);
      while (byToken.filter((e) => e.action === 'tool.called').length < 2) byToken = await events(`credential=${m.derived.id}`);
      expect(byToken.map((e) => e.action)).toEqual([
        'capability.delete_task',
        'capability.delete_task',
        'tool.called',
        'tool.called',
        'capability.update_task',
        'capability.create_task',
        'project_token.derived',
      ]);
      // Its writes, and the event that made it (whose target it is).
      const writes = byToken.filter((e) => e.action.startsWith('capability.'));
      expect(writes.every((e) => e.actorId === m.derived.id && e.metadata.serviceKeyId === m.key.id)).toBe(true);
      expect(byToken.find((e) => e.action === 'capability.create_task')).toMatchObject({
        targetId: taskId,
        metadata: { tool: 'create_task', outcome: 'succeeded' },
      });
      // The reads: one record each, with the tool, the outcome, the credential and the arguments' hash.
      const reads = byToken.filter((e) => e.action === 'tool.called');
      expect(reads.map((e) => e.metadata)).toEqual([
        { tool: 'list_tasks', outcome: 'succeeded', readOnly: true, argumentsSha256: expect.stringMatching(/^[0-9a-f]{64}$/), serviceKeyId: m.key.id },
        { tool: 'get_task', outcome: 'succeeded', readOnly: true, argumentsSha256: expect.stringMatching(/^[0-9a-f]{64}$/), serviceKeyId: m.key.id },
      ]);
      expect(reads.every((e) => e.actorId === m.derived.id && e.projectId === m.project.id)).toBe(true);
    } finally {
      await m.client.close();
    }
  });

  it('a create_task whose project is deleted while it runs writes no task and records the refusal', async () => {
    const m = await machine('Vanishing');
    try {
      // The token was accepted; the project's deletion commits before the task's insert.
      await t.dataSource.query('UPDATE projects SET deleted_at = now() WHERE id = $1', [m.project.id]);
      const context: ProjectContext = {
        projectId: m.project.id,
        organizationId: admin.organization.id,
        permissions: ['tasks:write'],
        credential: { tokenId: m.derived.id, serviceKeyId: m.key.id, grantId: null, clientId: null },
      };
      expect(await t.app.get(TasksRepository).forProject(context, 'create_task').create({ title: 'Too late' })).toBeNull();
      expect(await t.dataSource.query('SELECT id FROM tasks WHERE project_id = $1', [m.project.id])).toEqual([]);
      const creates = (await events(`credential=${m.derived.id}`)).filter((e) => e.action === 'capability.create_task');
      expect(creates).toEqual([
        expect.objectContaining({
          projectId: m.project.id,
          actorId: m.derived.id,
          targetType: 'task',
          targetId: null,
          metadata: { tool: 'create_task', outcome: 'not_found', serviceKeyId: m.key.id },
        }),
      ]);
    } finally {
      await m.client.close();
    }
  });

  it('filters by project, credential (token or its service key) and action', async () => {
    const first = await machine('First');
    const second = await machine('Second');
    try {
      await call(first.client, 'create_task', { title: 'one' });
      await call(second.client, 'create_task', { title: 'two' });
      await call(second.client, 'create_task', { title: 'three' });

      const ofSecond = await events(`projectId=${second.project.id}`);
      expect(ofSecond.every((e) => e.projectId === second.project.id)).toBe(true);
      expect(ofSecond.filter((e) => e.action === 'capability.create_task')).toHaveLength(2);

      // The service key: the derivation (made by the admin) and every write of the token derived from it.
      const byKey = await events(`credential=${first.key.id}`);
      expect(byKey.map((e) => e.action)).toEqual(['capability.create_task', 'project_token.derived', 'service_key.created']);

      const creates = await events(`action=capability.create_task&projectId=${first.project.id}`);
      expect(creates).toHaveLength(1);
      expect(creates[0]).toMatchObject({ actorId: first.derived.id, metadata: { serviceKeyId: first.key.id } });

      expect(await events(`action=capability.create_task&credential=${first.derived.id}&projectId=${second.project.id}`)).toEqual([]);
    } finally {
      await first.client.close();
      await second.client.close();
    }
  });

  it('names the OAuth client behind an OAuth token', async () => {
    const project = (await post('/projects', { name: 'OAuth audited' }).expect(201)).body as { id: string };
    const token = await createAgentToken(t.dataSource, { id: project.id, organizationId: admin.organization.id });
    const client = await connectClient(t.baseUrl, MODERN_VERSION, { Authorization: `Bearer ${token.token}` });
    try {
      await call(client, 'create_task', { title: 'from an AI client' });
    } finally {
      await client.close();
    }
    const [event] = await events(`credential=test-client&action=capability.create_task`);
    expect(event).toMatchObject({
      projectId: project.id,
      actorType: 'agent_token',
      actorId: token.id,
      metadata: { tool: 'create_task', outcome: 'succeeded', grantId: null, clientId: 'test-client' },
    });
  });

  it('refuses a malformed filter with a 400 naming it', async () => {
    const res = await request(t.baseUrl)
      .get(`${org()}/audit-events?projectId=not-a-project`)
      .set('Authorization', `Bearer ${admin.accessToken}`)
      .expect(400);
    expect(JSON.stringify(res.body.message)).toContain('projectId');
    expect(JSON.stringify(res.body.message)).not.toContain('not-a-project');
    const long = await request(t.baseUrl)
      .get(`${org()}/audit-events?action=${'x'.repeat(101)}`)
      .set('Authorization', `Bearer ${admin.accessToken}`)
      .expect(400);
    expect(JSON.stringify(long.body.message)).toContain('action');
  });
});
