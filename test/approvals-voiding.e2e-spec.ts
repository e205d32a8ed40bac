import request from 'supertest';
import { AGENT_PERMISSION_NAMES, CapabilityRegistry } from '@app/capabilities';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { createTeam } from './factories/rest';
import { tokenOfKind } from './helpers/credential-kinds';
import { connectClient } from './helpers/mcp';
import { savePolicy } from './helpers/policy';
import { startTestApp, TestApp } from './helpers/test-app';

type Team = Awaited<ReturnType<typeof createTeam>>;
const RULE = { id: 'ask', tools: ['create_task'], effect: 'approve', approval: { approvers: 'admins' } };

/** Every way an approval ends besides its use (SPEC §10): replays need a new one; voided, expired, each audited. */
describe('approvals: replays, voiding and expiry', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const idIn = (result: { content?: unknown }) => /\/approvals\/([0-9a-f-]{36})/.exec((result.content as { text: string }[])[0].text)![1];
  const spyCreate = () => jest.spyOn(t.app.get(CapabilityRegistry).toolsetFor(AGENT_PERMISSION_NAMES).byName.get('create_task')!.definition, 'handle');
  const path = (team: Team, id: string) => `/api/organizations/${team.organization.id}/approvals/${id}`;
  const approve = (team: Team, id: string) => request(t.baseUrl).post(`${path(team, id)}/decision`).auth(team.admin.jwt, { type: 'bearer' }).send({ decision: 'approve' });
  const read = async (team: Team, id: string) => (await request(t.baseUrl).get(path(team, id)).auth(team.admin.jwt, { type: 'bearer' }).expect(200)).body as { status: string; voidedReason: string | null };
  const actionsOf = async (id: string) =>
    ((await t.dataSource.query(`SELECT action, metadata FROM audit_events WHERE target_id = $1 ORDER BY created_at, action`, [id])) as { action: string; metadata: Record<string, unknown> }[]);

  async function agentOf(team: Team, project: { id: string }, userId = team.member.id) {
    const { accessToken, grantId } = await insertConnectedClient(t.dataSource, { userId, organizationId: team.organization.id, projectId: project.id, permissions: [...AGENT_PERMISSION_NAMES] });
    const connected = await connectClient(t.baseUrl, '2025-06-18', { Authorization: `Bearer ${accessToken}` });
    return { ...connected, grantId, create: (title: string) => connected.client.callTool({ name: 'create_task', arguments: { title } }) };
  }

  async function setUp() {
    const team = await createTeam(t);
    const project = await createProject(t.dataSource, team.organization.id, 'Alpha');
    await savePolicy(t, team, [RULE]);
    return { team, project };
  }

  it('an approval serves only its exact call: another client, project or derived token needs its own', async () => {
    const { team, project } = await setUp();
    const first = await agentOf(team, project);
    const secondClient = await agentOf(team, project);
    const beta = await createProject(t.dataSource, team.organization.id, 'Beta');
    const onBeta = await agentOf(team, beta);
    try {
      const handle = spyCreate();
      const id = idIn(await first.create('Same'));
      expect((await approve(team, id)).status).toBe(200);
      for (const other of [secondClient, onBeta]) {
        const held = await other.create('Same');
        expect(held.isError).toBe(true);
        expect(idIn(held)).not.toBe(id);
      }
      expect(handle).not.toHaveBeenCalled();
      // Two derived tokens of one organisation: an approval of one's call does not serve the other.
      const tokens = [await tokenOfKind(t, team, project, 'derived'), await tokenOfKind(t, team, project, 'derived')];
      const machines = await Promise.all(tokens.map((token) => connectClient(t.baseUrl, '2025-06-18', { Authorization: `Bearer ${token}` })));
      try {
        const machineId = idIn(await machines[0].client.callTool({ name: 'create_task', arguments: { title: 'Machine' } }));
        expect((await approve(team, machineId)).status).toBe(200);
        const other = await machines[1].client.callTool({ name: 'create_task', arguments: { title: 'Machine' } });
        expect(idIn(other)).not.toBe(machineId);
        expect((await machines[0].client.callTool({ name: 'create_task', arguments: { title: 'Machine' } })).isError).toBeFalsy();
      } finally {
        await Promise.all(machines.map((m) => m.close()));
      }
      expect((await first.create('Same')).isError).toBeFalsy();
      expect(handle).toHaveBeenCalledTimes(2);
    } finally {
      await Promise.all([first.close(), secondClient.close(), onBeta.close()]);
    }
  });

  it('a changed rule voids its approvals (saving the same rules does not), and the call asks again', async () => {
    const { team, project } = await setUp();
    const agent = await agentOf(team, project);
    try {
      const id = idIn(await agent.create('Rule'));
      expect((await approve(team, id)).status).toBe(200);
      await savePolicy(t, team, [RULE]);
      expect((await read(team, id)).status).toBe('approved');
      await savePolicy(t, team, [{ ...RULE, approval: { approvers: 'admins', ttlSeconds: 900 } }]);
      expect(await read(team, id)).toMatchObject({ status: 'voided', voidedReason: 'rule_changed' });
      const again = await agent.create('Rule');
      expect(again.isError).toBe(true);
      expect(idIn(again)).not.toBe(id);
      const actions = await actionsOf(id);
      expect(actions.map((a) => a.action)).toEqual(['approval.requested', 'approval.approved', 'approval.voided']);
      expect(actions[2].metadata).toMatchObject({ reason: 'rule_changed', ruleId: 'ask', tool: 'create_task', bindingSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    } finally {
      await agent.close();
    }
  });

  it('voids the approvals of a removed member and of a deleted project', async () => {
    const { team, project } = await setUp();
    const agent = await agentOf(team, project);
    const doomed = await createProject(t.dataSource, team.organization.id, 'Doomed');
    const adminAgent = await agentOf(team, doomed, team.admin.id);
    await savePolicy(t, team, [{ ...RULE, approval: { approvers: 'admins', selfApproval: true } }]);
    try {
      const memberId = idIn(await agent.create('Member'));
      const projectId = idIn(await adminAgent.create('Doomed'));
      await request(t.baseUrl).delete(`/api/organizations/${team.organization.id}/members/${team.member.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(await read(team, memberId)).toMatchObject({ status: 'voided', voidedReason: 'member_removed' });
      await request(t.baseUrl).delete(`/api/organizations/${team.organization.id}/projects/${doomed.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(await read(team, projectId)).toMatchObject({ status: 'voided', voidedReason: 'project_deleted' });
      expect((await approve(team, projectId)).body).toMatchObject({ code: 'approval_not_pending' });
      for (const id of [memberId, projectId]) expect((await actionsOf(id)).map((a) => a.action)).toEqual(['approval.requested', 'approval.voided']);
    } finally {
      await agent.close();
      await adminAgent.close();
    }
  });

  it('expires a pending approval past its lifetime and an approved one unused 600 s after the decision; the call asks again', async () => {
    const { team, project } = await setUp();
    const agent = await agentOf(team, project);
    try {
      const handle = spyCreate();
      const pending = idIn(await agent.create('Slow'));
      await t.dataSource.query(`UPDATE approvals SET expires_at = now() - interval '1 second' WHERE id = $1`, [pending]);
      expect((await approve(team, pending)).body).toMatchObject({ code: 'approval_not_pending' });
      expect((await read(team, pending)).status).toBe('expired');
      const fresh = idIn(await agent.create('Slow'));
      expect(fresh).not.toBe(pending);

      expect((await approve(team, fresh)).status).toBe(200);
      await t.dataSource.query(`UPDATE approvals SET decided_at = now() - interval '601 seconds' WHERE id = $1`, [fresh]);
      expect((await read(team, fresh)).status).toBe('expired');
      expect(idIn(await agent.create('Slow'))).not.toBe(fresh);
      expect(handle).not.toHaveBeenCalled();
      expect((await actionsOf(pending)).map((a) => a.action)).toEqual(['approval.requested', 'approval.expired']);
      expect((await actionsOf(fresh)).map((a) => a.action)).toEqual(['approval.requested', 'approval.approved', 'approval.expired']);
    } finally {
      await agent.close();
    }
  });
});
