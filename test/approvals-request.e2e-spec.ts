import { AGENT_PERMISSION_NAMES, CapabilityRegistry } from '@app/capabilities';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { createTeam } from './factories/rest';
import { connectClient } from './helpers/mcp';
import { savePolicy as savePolicyOf } from './helpers/policy';
import { startTestApp, TestApp } from './helpers/test-app';

type Team = Awaited<ReturnType<typeof createTeam>>;

/** A call held by an `approve` rule (SPEC §10 "Approve"): the pending approval, its caps, its consumption. */
describe('approvals requested by agents’ calls', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const savePolicy = (team: Team, rules: object[]) => savePolicyOf(t, team, rules);

  async function setUp(userOf: (team: Team) => string = (team) => team.member.id, version = '2025-06-18') {
    const team = await createTeam(t);
    const project = await createProject(t.dataSource, team.organization.id, 'Project Bluebird');
    const { accessToken } = await insertConnectedClient(t.dataSource, {
      userId: userOf(team),
      organizationId: team.organization.id,
      projectId: project.id,
      permissions: [...AGENT_PERMISSION_NAMES],
    });
    const connected = await connectClient(t.baseUrl, version, { Authorization: `Bearer ${accessToken}` });
    await savePolicy(team, [{ id: 'ask', tools: ['create_task'], effect: 'approve', approval: { approvers: 'admins' } }]);
    return { team, project, ...connected };
  }

  const spyCreate = () => jest.spyOn(t.app.get(CapabilityRegistry).toolsetFor(AGENT_PERMISSION_NAMES).byName.get('create_task')!.definition, 'handle');
  const textOf = (result: { content?: unknown }) => (result.content as { text: string }[])[0].text;
  const approvalIdOf = (text: string) => /\/approvals\/([0-9a-f-]{36})/.exec(text)![1];

  it('holds the call without running it; the same call again gets the same approval; other arguments get another', async () => {
    const m = await setUp();
    try {
      const handle = spyCreate();
      const first = await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      expect(first.isError).toBe(true);
      expect(textOf(first)).toMatch(new RegExp(`^This call needs a person's approval \\(rule "ask"\\): ${t.baseUrl}/approvals/[0-9a-f-]{36} — call again once it is approved\\.$`));
      const again = await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      expect(textOf(again)).toBe(textOf(first));
      const other = await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship that' } });
      expect(approvalIdOf(textOf(other))).not.toBe(approvalIdOf(textOf(first)));
      expect(handle).not.toHaveBeenCalled();
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM tasks WHERE project_id = $1`, [m.project.id]);
      expect(count).toBe(0);
      const events = await t.dataSource.query(
        `SELECT action, target_id, metadata FROM audit_events WHERE organization_id = $1 AND target_type = 'approval' ORDER BY created_at, action`,
        [m.team.organization.id],
      );
      expect(events.map((e: { action: string }) => e.action)).toEqual(['approval.requested', 'approval.pending', 'approval.requested']);
      expect(events[0].target_id).toBe(approvalIdOf(textOf(first)));
      expect(events[0].metadata).toMatchObject({
        organizationId: m.team.organization.id,
        projectId: m.project.id,
        tool: 'create_task',
        argumentsSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        credentialKind: 'oauth',
        credentialId: expect.any(String),
        userId: m.team.member.id,
        ruleId: 'ask',
        ruleSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(JSON.stringify(events)).not.toContain('Ship it');
    } finally {
      await m.close();
    }
  });

  it('runs an approved call exactly once, and a second use needs a new approval', async () => {
    const m = await setUp();
    try {
      const handle = spyCreate();
      const held = await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      const id = approvalIdOf(textOf(held));
      await t.dataSource.query(`UPDATE approvals SET status = 'approved', decided_at = now() WHERE id = $1`, [id]);
      const ran = await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      expect(ran.isError).toBeFalsy();
      expect(handle).toHaveBeenCalledTimes(1);
      const replay = await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      expect(replay.isError).toBe(true);
      expect(approvalIdOf(textOf(replay))).not.toBe(id);
      expect(handle).toHaveBeenCalledTimes(1);
      const [row] = await t.dataSource.query(`SELECT status, consumed_at FROM approvals WHERE id = $1`, [id]);
      expect(row).toEqual({ status: 'consumed', consumed_at: expect.any(Date) });
    } finally {
      await m.close();
    }
  });

  it('does not consume an approval decided more than 600 s ago', async () => {
    const m = await setUp();
    try {
      const handle = spyCreate();
      const id = approvalIdOf(textOf(await m.client.callTool({ name: 'create_task', arguments: { title: 'Late' } })));
      await t.dataSource.query(`UPDATE approvals SET status = 'approved', decided_at = now() - interval '601 seconds' WHERE id = $1`, [id]);
      const retry = await m.client.callTool({ name: 'create_task', arguments: { title: 'Late' } });
      expect(retry.isError).toBe(true);
      expect(approvalIdOf(textOf(retry))).not.toBe(id);
      expect(handle).not.toHaveBeenCalled();
    } finally {
      await m.close();
    }
  });

  it('refuses the 21st pending approval of one credential, naming the cap', async () => {
    const m = await setUp();
    try {
      for (let i = 0; i < 20; i++) {
        const held = await m.client.callTool({ name: 'create_task', arguments: { title: `Task ${i}` } });
        expect(textOf(held)).toContain('/approvals/');
      }
      const refused = await m.client.callTool({ name: 'create_task', arguments: { title: 'Task 21' } });
      expect(refused).toMatchObject({ isError: true, _meta: { 'agent-gateway/error': { code: 'too_many_pending_approvals' } } });
      expect(textOf(refused)).toBe('This credential has 20 approvals pending, the most it may have; wait for them to be decided.');
      const again = await m.client.callTool({ name: 'create_task', arguments: { title: 'Task 3' } });
      expect(textOf(again)).toContain('/approvals/');
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM approvals WHERE organization_id = $1`, [m.team.organization.id]);
      expect(count).toBe(20);
    } finally {
      await m.close();
    }
  });

  it('gives a sole admin’s own call under an admins rule without selfApproval "no one can approve"', async () => {
    const m = await setUp((team) => team.admin.id);
    try {
      const handle = spyCreate();
      const result = await m.client.callTool({ name: 'create_task', arguments: { title: 'Mine' } });
      expect(result).toMatchObject({ isError: true, _meta: { 'agent-gateway/error': { code: 'no_approver' } } });
      expect(textOf(result)).toContain('no one can approve it');
      expect(handle).not.toHaveBeenCalled();
      await savePolicy(m.team, [{ id: 'ask', tools: ['create_task'], effect: 'approve', approval: { approvers: 'admins', selfApproval: true } }]);
      const selfApproved = await m.client.callTool({ name: 'create_task', arguments: { title: 'Mine' } });
      expect(textOf(selfApproved)).toContain('/approvals/');
    } finally {
      await m.close();
    }
  });

  it('answers 2025-11-25 with the JSON-RPC error -32042 carrying one URL-mode elicitation, the URL also in the message', async () => {
    const m = await setUp(undefined, '2025-11-25');
    try {
      const handle = spyCreate();
      const error = (await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } }).then(
        () => null,
        (e: unknown) => e,
      )) as { code: number; message: string; data: { elicitations: { mode: string; elicitationId: string; url: string; message: string }[] } };
      expect(error).not.toBeNull();
      expect(error.code).toBe(-32042);
      const [elicitation] = error.data.elicitations;
      expect(error.data.elicitations).toHaveLength(1);
      expect(elicitation).toEqual({ mode: 'url', elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/), url: `${t.baseUrl}/approvals/${elicitation.elicitationId}`, message: expect.stringContaining(elicitation.url) });
      expect(error.message).toContain(elicitation.url);
      expect(handle).not.toHaveBeenCalled();
      await t.dataSource.query(`UPDATE approvals SET status = 'approved', decided_at = now() WHERE id = $1`, [elicitation.elicitationId]);
      const ran = await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      expect(ran.isError).toBeFalsy();
      expect(handle).toHaveBeenCalledTimes(1);
    } finally {
      await m.close();
    }
  });
});
