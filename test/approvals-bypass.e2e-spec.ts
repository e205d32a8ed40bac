import request from 'supertest';
import { AGENT_PERMISSION_NAMES, CapabilityRegistry } from '@app/capabilities';
import { createProject } from './factories';
import { createTeam } from './factories/rest';
import { type CredentialKind, tokenOfKind } from './helpers/credential-kinds';
import { connectClient } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

type Team = Awaited<ReturnType<typeof createTeam>>;

const KINDS: CredentialKind[] = ['oauth', 'id_jag', 'derived'];
const VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

/**
 * The bypass matrix (SPEC §10 "Approve"): every write and destructive capability, under an
 * `approve` rule, for each credential kind and protocol revision, runs its handler 0 times before
 * its approval, exactly once after it, and a third call needs a new approval.
 */
describe('approvals cannot be bypassed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  async function setUp(kind: CredentialKind) {
    const team: Team = await createTeam(t);
    const project = await createProject(t.dataSource, team.organization.id, 'Project Bluebird');
    const path = `/api/organizations/${team.organization.id}/policy`;
    const rules = [{ id: 'ask', risk: ['write', 'destructive'], effect: 'approve', approval: { approvers: 'admins' } }];
    await request(t.baseUrl).put(path).set('Authorization', `Bearer ${team.admin.jwt}`).send({ version: 0, rules }).expect(200);
    return { team, project, token: await tokenOfKind(t, team, project, kind) };
  }

  /** A real decision: the team's admin approves over REST. */
  const approve = (team: Team, id: string) =>
    request(t.baseUrl).post(`/api/organizations/${team.organization.id}/approvals/${id}/decision`).auth(team.admin.jwt, { type: 'bearer' }).send({ decision: 'approve' }).expect(200);

  const newTask = async (projectId: string, title: string) =>
    ((await t.dataSource.query(`INSERT INTO tasks (project_id, title) VALUES ($1, $2) RETURNING id`, [projectId, title])) as { id: string }[])[0].id;

  /** The approval a held call names, from the answer its revision gives (-32042 on 2025-11-25, else the tool error's text). */
  async function heldApproval(call: () => Promise<unknown>, version: string): Promise<string> {
    let answer: unknown;
    try {
      answer = await call();
    } catch (error) {
      answer = error;
    }
    if (version === '2025-11-25') {
      const e = answer as { code: number; data: { elicitations: { elicitationId: string; url: string }[] } };
      expect(e.code).toBe(-32042);
      return e.data.elicitations[0].elicitationId;
    }
    const result = answer as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    const id = /\/approvals\/([0-9a-f-]{36}) — call again once it is approved\.$/.exec(result.content[0].text);
    expect(id).not.toBeNull();
    return id![1];
  }

  describe.each(KINDS)('%s credentials', (kind) => {
    it.each(VERSIONS)('on %s: 0 runs before approval, 1 after, a third call needs a new approval', async (version) => {
      const m = await setUp(kind);
      const connected = await connectClient(t.baseUrl, version, { Authorization: `Bearer ${m.token}` });
      try {
        const registry = t.app.get(CapabilityRegistry);
        const tools = [...registry.names].filter((n) => registry.riskOf(n) !== 'read').sort();
        expect(tools).toEqual(['create_task', 'delete_task', 'update_task']);
        for (const tool of tools) {
          const taskId = await newTask(m.project.id, `Task for ${tool}`);
          const args: Record<string, unknown> = tool === 'create_task' ? { title: `New ${version}` } : tool === 'update_task' ? { id: taskId, status: 'done' } : { id: taskId };
          const handle = jest.spyOn(registry.toolsetFor(AGENT_PERMISSION_NAMES).byName.get(tool)!.definition, 'handle');
          const call = () => connected.client.callTool({ name: tool, arguments: args });
          const id = await heldApproval(call, version);
          expect(await heldApproval(call, version)).toBe(id);
          expect(handle).not.toHaveBeenCalled();
          await approve(m.team, id);
          const ran = (await call()) as { isError?: boolean };
          expect(ran.isError).toBeFalsy();
          expect(handle).toHaveBeenCalledTimes(1);
          const third = tool === 'delete_task' ? null : await heldApproval(call, version);
          if (third !== null) expect(third).not.toBe(id);
          expect(handle).toHaveBeenCalledTimes(1);
          handle.mockRestore();
        }
        const consumed = await t.dataSource.query(`SELECT target_id FROM audit_events WHERE organization_id = $1 AND action = 'approval.consumed'`, [m.team.organization.id]);
        expect(consumed).toHaveLength(3);
      } finally {
        await connected.close();
      }
    });
  });

  it('runs an approved call held twice in one JSON-RPC batch once', async () => {
    const m = await setUp('oauth');
    const handle = jest.spyOn(t.app.get(CapabilityRegistry).toolsetFor(AGENT_PERMISSION_NAMES).byName.get('create_task')!.definition, 'handle');
    const post = async (body: unknown) => {
      const res = await fetch(`${t.baseUrl}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${m.token}`, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return JSON.parse(text) as unknown;
      // An event stream holds one answer per event.
      const answers = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as unknown);
      return answers.length === 1 ? answers[0] : answers.flat();
    };
    const message = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_task', arguments: { title: 'Once' } } });
    const held = (await post(message(1))) as { result: { isError: boolean; content: { text: string }[] } };
    const id = /\/approvals\/([0-9a-f-]{36})/.exec(held.result.content[0].text)![1];
    await approve(m.team, id);
    const answers = (await post([message(2), message(3)])) as { id: number; result: { isError?: boolean } }[];
    expect(answers).toHaveLength(2);
    expect(answers.map((a) => Boolean(a.result.isError)).sort()).toEqual([false, true]);
    expect(handle).toHaveBeenCalledTimes(1);
    const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM tasks WHERE project_id = $1 AND title = 'Once'`, [m.project.id]);
    expect(count).toBe(1);
  });
});
