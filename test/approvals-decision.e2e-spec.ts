import request from 'supertest';
import { AGENT_PERMISSION_NAMES, CapabilityRegistry } from '@app/capabilities';
import { addMember, createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { createApiKey, createPersonWithoutPassword, createTeam, sessionFor } from './factories/rest';
import { connectClient } from './helpers/mcp';
import { savePolicy } from './helpers/policy';
import { startTestApp, TestApp } from './helpers/test-app';

type Team = Awaited<ReturnType<typeof createTeam>>;

/** Deciding approvals over REST (SPEC §10 "Approval statuses"): who may read, who may decide, and how decisions combine. */
describe('approval decisions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const approvalIdOf = (text: string) => /\/approvals\/([0-9a-f-]{36})/.exec(text)![1];
  const textOf = (result: { content?: unknown }) => (result.content as { text: string }[])[0].text;
  const spyCreate = () => jest.spyOn(t.app.get(CapabilityRegistry).toolsetFor(AGENT_PERMISSION_NAMES).byName.get('create_task')!.definition, 'handle');

  /** A team whose member's agent is connected, a second admin, and a rule asking for approval of create_task. */
  async function setUp(approval: object = { approvers: 'admins' }) {
    const team = await createTeam(t);
    const second = await createPersonWithoutPassword(t.dataSource, 'Sam Second');
    await addMember(t.dataSource, team.organization.id, second.id, 'admin');
    const bystander = await createPersonWithoutPassword(t.dataSource, 'Bea Bystander');
    await addMember(t.dataSource, team.organization.id, bystander.id, 'member');
    const project = await createProject(t.dataSource, team.organization.id, 'Project Bluebird');
    const { grantId, accessToken } = await insertConnectedClient(t.dataSource, {
      userId: team.member.id,
      organizationId: team.organization.id,
      projectId: project.id,
      permissions: [...AGENT_PERMISSION_NAMES],
    });
    const connected = await connectClient(t.baseUrl, '2025-06-18', { Authorization: `Bearer ${accessToken}` });
    await savePolicy(t, team, [{ id: 'ask', description: 'New tasks need a look', tools: ['create_task'], effect: 'approve', approval }]);
    const held = async (title: string) => approvalIdOf(textOf(await connected.client.callTool({ name: 'create_task', arguments: { title } })));
    return {
      team,
      project,
      grantId,
      accessToken,
      held,
      ...connected,
      second: { ...second, jwt: await sessionFor(t, second.id) },
      bystander: { ...bystander, jwt: await sessionFor(t, bystander.id) },
    };
  }
  type Setup = Awaited<ReturnType<typeof setUp>>;

  const path = (team: Team, id = '') => `/api/organizations/${team.organization.id}/approvals${id ? `/${id}` : ''}`;
  const decide = (m: Setup, id: string, jwt: string, decision: string, reason?: string) =>
    request(t.baseUrl).post(`${path(m.team, id)}/decision`).auth(jwt, { type: 'bearer' }).send(reason ? { decision, reason } : { decision });

  it('lets an admin read and approve; the retried call then runs exactly once', async () => {
    const m = await setUp();
    try {
      const handle = spyCreate();
      const id = await m.held('Ship it');
      const got = await request(t.baseUrl).get(path(m.team, id)).auth(m.team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(got.headers['cache-control']).toContain('no-store');
      expect(got.body).toMatchObject({
        id,
        status: 'pending',
        url: `${t.baseUrl}/approvals/${id}`,
        tool: 'create_task',
        risk: 'write',
        arguments: { title: 'Ship it' },
        ruleId: 'ask',
        ruleDescription: 'New tasks need a look',
        credentialKind: 'oauth',
        credentialId: m.grantId,
        userId: m.team.member.id,
        approvals: { count: 0, needed: 1 },
        canDecide: true,
      });
      const listed = await request(t.baseUrl).get(`${path(m.team)}?status=pending`).auth(m.team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(listed.body.approvals.map((a: { id: string }) => a.id)).toEqual([id]);
      await request(t.baseUrl).get(`${path(m.team)}?status=maybe`).auth(m.team.admin.jwt, { type: 'bearer' }).expect(400);

      const approved = await decide(m, id, m.team.admin.jwt, 'approve', 'Looks fine').expect(200);
      expect(approved.body).toMatchObject({ status: 'approved', approvedBy: [m.team.admin.id], decisionReason: 'Looks fine', canDecide: false });
      await decide(m, id, m.second.jwt, 'deny').expect(409);
      expect(handle).not.toHaveBeenCalled();

      const ran = await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      expect(ran.isError).toBeFalsy();
      const replay = await m.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      expect(approvalIdOf(textOf(replay))).not.toBe(id);
      expect(handle).toHaveBeenCalledTimes(1);
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM tasks WHERE project_id = $1`, [m.project.id]);
      expect(count).toBe(1);
      const events: { action: string; actor_type: string; actor_id: string }[] = await t.dataSource.query(
        `SELECT action, actor_type, actor_id FROM audit_events WHERE target_id = $1 ORDER BY created_at, action`,
        [id],
      );
      expect(events.map((e) => e.action)).toEqual(['approval.requested', 'approval.approved', 'approval.consumed']);
      expect(events[1]).toMatchObject({ actor_type: 'user', actor_id: m.team.admin.id });
    } finally {
      await m.close();
    }
  });

  it('refuses decisions and reads to everyone the rules leave out', async () => {
    const m = await setUp();
    try {
      const id = await m.held('Ship it');
      // The agent's own token and an rk_ key never decide, nor read.
      for (const [method, url] of [['get', path(m.team, id)], ['post', `${path(m.team, id)}/decision`], ['get', path(m.team)]] as const) {
        const byAgent = await request(t.baseUrl)[method](url).set('Authorization', `Bearer ${m.accessToken}`).send({ decision: 'approve' });
        expect(byAgent.status).toBe(403);
        const { key } = await createApiKey(t.dataSource, m.team.organization.id, ['projects:read', 'audit:read']);
        await request(t.baseUrl)[method](url).set('Authorization', `Bearer ${key}`).send({ decision: 'approve' }).expect(403);
      }
      // The requester reads it but is not an approver of an `admins` rule.
      const own = await request(t.baseUrl).get(path(m.team, id)).auth(m.team.member.jwt, { type: 'bearer' }).expect(200);
      expect(own.body.canDecide).toBe(false);
      expect((await decide(m, id, m.team.member.jwt, 'approve').expect(403)).body).toMatchObject({ code: 'not_an_approver' });
      // A member neither approver nor requester, and another organisation's admin: not found.
      await request(t.baseUrl).get(path(m.team, id)).auth(m.bystander.jwt, { type: 'bearer' }).expect(404);
      await decide(m, id, m.bystander.jwt, 'approve').expect(404);
      expect((await request(t.baseUrl).get(path(m.team)).auth(m.bystander.jwt, { type: 'bearer' }).expect(200)).body.approvals).toEqual([]);
      await request(t.baseUrl).get(path(m.team, id)).auth(m.team.outsider.jwt, { type: 'bearer' }).expect(404);
      await decide(m, id, m.team.outsider.jwt, 'approve').expect(404);
      await request(t.baseUrl).get(path(m.team, 'not-a-uuid')).auth(m.team.admin.jwt, { type: 'bearer' }).expect(404);
      // A sign-in older than 15 minutes.
      await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE user_id = $1`, [m.team.admin.id]);
      expect((await decide(m, id, m.team.admin.jwt, 'approve').expect(401)).body).toMatchObject({ code: 'reauthentication_required' });
      await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() WHERE user_id = $1`, [m.team.admin.id]);
      // Bad input.
      expect((await decide(m, id, m.team.admin.jwt, 'maybe').expect(400)).body.message).toEqual(expect.arrayContaining([expect.stringContaining('decision must be')]));
      const [row] = await t.dataSource.query(`SELECT status, approved_by FROM approvals WHERE id = $1`, [id]);
      expect(row).toEqual({ status: 'pending', approved_by: [] });
    } finally {
      await m.close();
    }
  });

  it('with count 2: the same approver twice counts once, a second approver approves, and one deny ends another', async () => {
    const m = await setUp({ approvers: 'admins', count: 2 });
    try {
      const id = await m.held('Two keys');
      expect((await decide(m, id, m.team.admin.jwt, 'approve').expect(200)).body).toMatchObject({ status: 'pending', approvals: { count: 1, needed: 2 } });
      expect((await decide(m, id, m.team.admin.jwt, 'approve').expect(409)).body).toMatchObject({ code: 'already_approved' });
      // Not approved yet: the call is still held, on the same approval.
      expect(approvalIdOf(textOf(await m.client.callTool({ name: 'create_task', arguments: { title: 'Two keys' } })))).toBe(id);
      expect((await decide(m, id, m.second.jwt, 'approve').expect(200)).body).toMatchObject({ status: 'approved', approvals: { count: 2, needed: 2 } });

      const other = await m.held('Denied');
      await decide(m, other, m.team.admin.jwt, 'approve').expect(200);
      expect((await decide(m, other, m.second.jwt, 'deny', 'No').expect(200)).body).toMatchObject({ status: 'denied', deniedBy: m.second.id });
      const retry = await m.client.callTool({ name: 'create_task', arguments: { title: 'Denied' } });
      expect(approvalIdOf(textOf(retry))).not.toBe(other);
    } finally {
      await m.close();
    }
  });

  it('makes exactly one outcome of an approve and a deny at the same moment', async () => {
    const m = await setUp();
    try {
      for (let round = 0; round < 3; round++) {
        const id = await m.held(`Race ${round}`);
        const [a, b] = await Promise.all([decide(m, id, m.team.admin.jwt, 'approve'), decide(m, id, m.second.jwt, 'deny')]);
        expect([a.status, b.status].sort()).toEqual([200, 409]);
        const winner = a.status === 200 ? 'approved' : 'denied';
        const [row] = await t.dataSource.query(`SELECT status FROM approvals WHERE id = $1`, [id]);
        expect(row.status).toBe(winner);
        const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM audit_events WHERE target_id = $1 AND action IN ('approval.approved', 'approval.denied')`, [id]);
        expect(count).toBe(1);
      }
    } finally {
      await m.close();
    }
  });

  it('voids the approval when its credential has ended, instead of deciding it', async () => {
    const m = await setUp();
    try {
      const id = await m.held('Orphan');
      await request(t.baseUrl).post(`/api/me/agent-grants/${m.grantId}/revoke`).auth(m.team.member.jwt, { type: 'bearer' }).expect(200);
      expect((await decide(m, id, m.team.admin.jwt, 'approve').expect(409)).body).toMatchObject({ code: 'credential_ended' });
      const [row] = await t.dataSource.query(`SELECT status, voided_reason FROM approvals WHERE id = $1`, [id]);
      expect(row).toEqual({ status: 'voided', voided_reason: 'credential_ended' });
      const [event] = await t.dataSource.query(`SELECT actor_type FROM audit_events WHERE target_id = $1 AND action = 'approval.voided'`, [id]);
      expect(event).toEqual({ actor_type: 'system' });
    } finally {
      await m.close();
    }
  });

  it('shows on the page what the held call would change: the task to delete, as it is now', async () => {
    const m = await setUp();
    try {
      await savePolicy(t, m.team, [{ id: 'ask-deletes', tools: ['delete_task'], effect: 'approve', approval: { approvers: 'admins' } }]);
      const [task] = await t.dataSource.query(`INSERT INTO tasks (project_id, title) VALUES ($1, 'Quarterly <report>') RETURNING id`, [m.project.id]);
      const id = approvalIdOf(textOf(await m.client.callTool({ name: 'delete_task', arguments: { id: task.id } })));
      const page = await request(t.baseUrl).get(`/approvals/${id}`).set('Cookie', `ag_session=${m.team.admin.jwt}`).expect(200);
      expect(page.headers['cache-control']).toContain('no-store');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.text).toContain('<dd id="approval-target">The task &quot;Quarterly &lt;report&gt;&quot;, now todo</dd>');
      // Another organisation's admin, and a member neither approver nor requester: no such page.
      await request(t.baseUrl).get(`/approvals/${id}`).set('Cookie', `ag_session=${m.team.outsider.jwt}`).expect(404);
      await request(t.baseUrl).get(`/approvals/${id}`).set('Cookie', `ag_session=${m.bystander.jwt}`).expect(404);
    } finally {
      await m.close();
    }
  });
});
