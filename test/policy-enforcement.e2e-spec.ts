import { Logger } from '@nestjs/common';
import { AGENT_PERMISSION_NAMES, CapabilityRegistry } from '@app/capabilities';
import { createProject } from './factories';
import { createTeam } from './factories/rest';
import { connectClient, ConnectedClient, MODERN_VERSION } from './helpers/mcp';
import { type CredentialKind as Kind, tokenOfKind } from './helpers/credential-kinds';
import { savePolicy as savePolicyOf } from './helpers/policy';
import { startTestApp, TestApp } from './helpers/test-app';

type Team = Awaited<ReturnType<typeof createTeam>>;

const refusal = (rule: string) => `Refused by the organisation's policy (rule "${rule}").`;

/** The policy applied to agents' calls at `/api/mcp` (SPEC §10 "Deny"). */
describe('organisation policy at the MCP endpoint', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const savePolicy = (team: Team, rules: object[]) => savePolicyOf(t, team, rules);

  async function setUp(kind: Kind, version = '2025-11-25') {
    const team = await createTeam(t);
    const project = await createProject(t.dataSource, team.organization.id, 'Project Bluebird');
    const [task] = await t.dataSource.query(
      `INSERT INTO tasks (project_id, title, description) VALUES ($1, 'Secret launch plan', 'Do not leak') RETURNING id`,
      [project.id],
    );
    const connected = await connectClient(t.baseUrl, version, { Authorization: `Bearer ${await tokenOfKind(t, team, project, kind)}` });
    return { team, project, taskId: (task as { id: string }).id, ...connected };
  }

  const argsFor = (taskId: string): Record<string, Record<string, unknown>> => ({
    get_project: {},
    list_tasks: {},
    get_task: { id: taskId },
    create_task: { title: 'New task' },
    update_task: { id: taskId, status: 'done' },
    delete_task: { id: taskId },
  });

  describe.each<Kind>(['oauth', 'id_jag', 'derived'])('a deny rule on %s credentials', (kind) => {
    it('refuses every capability with the refusal text, no project or task data, without running its handler, audited tool.denied', async () => {
      const m = await setUp(kind);
      try {
        await savePolicy(m.team, [{ id: `no-${kind}`, credentialKinds: [kind], effect: 'deny' }]);
        const registry = t.app.get(CapabilityRegistry);
        const args = argsFor(m.taskId);
        expect(Object.keys(args).sort()).toEqual([...registry.names].sort());
        for (const name of registry.names) {
          const definition = registry.toolsetFor(AGENT_PERMISSION_NAMES).byName.get(name)!.definition;
          const handle = jest.spyOn(definition, 'handle');
          const result = await m.client.callTool({ name, arguments: args[name] });
          expect(result).toEqual({
            content: [{ type: 'text', text: refusal(`no-${kind}`) }],
            isError: true,
            _meta: { 'agent-gateway/error': { code: 'policy_denied' } },
          });
          expect(JSON.stringify(result)).not.toMatch(/Bluebird|Secret launch plan|Do not leak/);
          expect(handle).not.toHaveBeenCalled();
        }
        const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM tasks WHERE project_id = $1`, [m.project.id]);
        expect(count).toBe(1);
        const events = await t.dataSource.query(
          `SELECT project_id, actor_type, target_id, metadata FROM audit_events WHERE organization_id = $1 AND action = 'tool.denied' ORDER BY created_at`,
          [m.team.organization.id],
        );
        expect(events.map((e: { target_id: string }) => e.target_id).sort()).toEqual([...registry.names].sort());
        for (const event of events) {
          expect(event).toMatchObject({ project_id: m.project.id, actor_type: 'agent_token' });
          expect(event.metadata).toMatchObject({
            tool: event.target_id,
            ruleId: `no-${kind}`,
            policyVersion: 1,
            argumentsSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
            credentialKind: kind,
            ...(kind === 'derived' ? { serviceKeyId: expect.any(String) } : { grantId: expect.any(String), clientId: expect.any(String) }),
          });
        }
      } finally {
        await m.close();
      }
    });

    it('lets the call run when the rule names another kind', async () => {
      const m = await setUp(kind, MODERN_VERSION);
      try {
        const others = (['oauth', 'id_jag', 'derived'] as const).filter((k) => k !== kind);
        await savePolicy(m.team, [{ id: 'others', credentialKinds: others, effect: 'deny' }]);
        const handle = jest.spyOn(t.app.get(CapabilityRegistry).toolsetFor(AGENT_PERMISSION_NAMES).byName.get('get_task')!.definition, 'handle');
        const result = await m.client.callTool({ name: 'get_task', arguments: { id: m.taskId } });
        expect(result.isError).toBeFalsy();
        expect(handle).toHaveBeenCalledTimes(1);
        expect((result.structuredContent as { task: { title: string } }).task.title).toBe('Secret launch plan');
      } finally {
        await m.close();
      }
    });
  });

  it('does not run a call an approve rule holds: every write and destructive capability is held for approval without running its handler', async () => {
    const m = await setUp('oauth', '2025-06-18');
    try {
      await savePolicy(m.team, [{ id: 'ask', risk: ['write', 'destructive'], effect: 'approve', approval: { approvers: 'admins' } }]);
      const registry = t.app.get(CapabilityRegistry);
      const args = argsFor(m.taskId);
      const held = [...registry.names].filter((n) => registry.riskOf(n) !== 'read');
      expect(held.sort()).toEqual(['create_task', 'delete_task', 'update_task']);
      for (const name of held) {
        const handle = jest.spyOn(registry.toolsetFor(AGENT_PERMISSION_NAMES).byName.get(name)!.definition, 'handle');
        const result = await m.client.callTool({ name, arguments: args[name] });
        expect(result).toMatchObject({ isError: true, _meta: { 'agent-gateway/error': { code: 'approval_required' } } });
        expect((result.content as { text: string }[])[0].text).toMatch(/^This call needs a person's approval \(rule "ask"\): http\S+\/approvals\/[0-9a-f-]{36} — call again once it is approved\.$/);
        expect(handle).not.toHaveBeenCalled();
      }
      const read = await m.client.callTool({ name: 'get_task', arguments: { id: m.taskId } });
      expect(read.isError).toBeFalsy();
      const tasks = await t.dataSource.query(`SELECT title, status FROM tasks WHERE project_id = $1`, [m.project.id]);
      expect(tasks).toEqual([{ title: 'Secret launch plan', status: 'todo' }]);
    } finally {
      await m.close();
    }
  });

  it('applies a saved policy at the next call, and its removal too', async () => {
    const m = await setUp('oauth');
    try {
      await m.client.callTool({ name: 'get_project', arguments: {} }).then((r) => expect(r.isError).toBeFalsy());
      await savePolicy(m.team, [{ id: 'closed', projects: [m.project.id], tools: ['update_task'], when: 'args.status == "done"', effect: 'deny' }]);
      const refused = await m.client.callTool({ name: 'update_task', arguments: { id: m.taskId, status: 'done' } });
      expect(refused.content).toEqual([{ type: 'text', text: refusal('closed') }]);
      const [{ status }] = await t.dataSource.query(`SELECT status FROM tasks WHERE id = $1`, [m.taskId]);
      expect(status).toBe('todo');
      const other = await m.client.callTool({ name: 'update_task', arguments: { id: m.taskId, status: 'in_progress' } });
      expect(other.isError).toBeFalsy();
      await savePolicy(m.team, []);
      const allowed = await m.client.callTool({ name: 'update_task', arguments: { id: m.taskId, status: 'done' } });
      expect(allowed.isError).toBeFalsy();
    } finally {
      await m.close();
    }
  });

  it('refuses a call whose rule fails to evaluate, and logs the rule id', async () => {
    const m = await setUp('derived');
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      await savePolicy(m.team, [
        { id: 'needs-person', when: 'person.role == "admin"', effect: 'allow' },
        { id: 'never-reached', effect: 'deny' },
      ]);
      const result = await m.client.callTool({ name: 'get_project', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: refusal('needs-person') }]);
      const [event] = await t.dataSource.query(`SELECT metadata FROM audit_events WHERE organization_id = $1 AND action = 'tool.denied'`, [m.team.organization.id]);
      expect(event.metadata.ruleId).toBe('needs-person');
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^rule "needs-person" of organisation \S+ failed to evaluate \(.+\); the call to get_project is refused$/));
    } finally {
      await m.close();
    }
  });

  it('runs matches("(a+)+$") in linear time: a 10,000-character argument is answered normally', async () => {
    const m = await setUp('oauth');
    try {
      await savePolicy(m.team, [{ id: 'redos', tools: ['create_task'], when: 'args.description.matches("(a+)+$")', effect: 'deny' }]);
      const missed = await m.client.callTool({ name: 'create_task', arguments: { title: 'long', description: `${'a'.repeat(9_999)}b` } });
      expect(missed.isError).toBeFalsy();
      const matched = await m.client.callTool({ name: 'create_task', arguments: { title: 'long', description: 'a'.repeat(10_000) } });
      expect(matched.content).toEqual([{ type: 'text', text: refusal('redos') }]);
    } finally {
      await m.close();
    }
  });
});
