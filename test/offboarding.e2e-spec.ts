import request from 'supertest';
import { AgentTokenService } from '@app/credentials';
import { addMember, createProject, createUser } from './factories';
import { createTeam, sessionFor } from './factories/rest';
import { startTestApp, TestApp } from './helpers/test-app';

/** A key never does more than its creator may do now (SPEC §8): removal and demotion end the rk_ keys a person created. */
describe('offboarding: rk_ keys follow their creator (SPEC §8)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const api = () => request(t.baseUrl);
  const bearer = { type: 'bearer' } as const;

  /** A team with a second admin, Bea, who made an rk_ key, a service key and a derived token. */
  async function teamWithSecondAdmin() {
    const team = await createTeam(t);
    const bea = await createUser(t.dataSource, { name: 'Bea Second' });
    await addMember(t.dataSource, team.organization.id, bea.id, 'admin');
    const beaJwt = await sessionFor(t, bea.id);
    const org = `/api/organizations/${team.organization.id}`;
    const project = await createProject(t.dataSource, team.organization.id);
    const rk = (
      await api()
        .post(`${org}/api-keys`)
        .auth(beaJwt, bearer)
        .send({ name: 'bea automation', permissions: ['members:read', 'projects:read', 'projects:write', 'service_keys:read', 'service_keys:write'] })
        .expect(201)
    ).body as { id: string; key: string };
    const serviceKey = (await api().post(`${org}/agent-service-keys`).auth(beaJwt, bearer).send({ name: 'ci machine' }).expect(201)).body as { id: string };
    const derived = (
      await api().post(`${org}/agent-service-keys/${serviceKey.id}/tokens`).auth(beaJwt, bearer).send({ projectId: project.id }).expect(201)
    ).body as { id: string; token: string };
    return { team, bea: { ...bea, jwt: beaJwt }, org, rk, serviceKey, derived };
  }

  /** What the key can do: list members, derive a token, create and delete a project. */
  async function keyStatuses(org: string, key: string, serviceKeyId: string, organizationId: string) {
    const other = await createProject(t.dataSource, organizationId);
    return [
      (await api().get(`${org}/members`).auth(key, bearer)).status,
      (await api().post(`${org}/agent-service-keys/${serviceKeyId}/tokens`).auth(key, bearer).send({ projectId: other.id })).status,
      (await api().post(`${org}/projects`).auth(key, bearer).send({ name: 'by key' })).status,
      (await api().delete(`${org}/projects/${other.id}`).auth(key, bearer)).status,
    ];
  }

  it('removing an admin revokes their rk_ keys in the same change, lists their service keys and tokens, which keep working', async () => {
    const { team, bea, org, rk, serviceKey, derived } = await teamWithSecondAdmin();
    expect(await keyStatuses(org, rk.key, serviceKey.id, team.organization.id)).toEqual([200, 201, 201, 200]);
    const res = await api().delete(`${org}/members/${bea.id}`).auth(team.admin.jwt, bearer).expect(200);
    expect(res.body.offboarding.apiKeys).toEqual({ outcome: 'revoked', count: 1, items: [{ id: rk.id, name: 'bea automation' }] });
    expect(res.body.offboarding.serviceKeys).toEqual([
      {
        id: serviceKey.id,
        name: 'ci machine',
        tokens: { method: 'GET', path: `${org}/agent-service-keys/${serviceKey.id}/tokens` },
        revoke: { method: 'POST', path: `${org}/agent-service-keys/${serviceKey.id}/revoke` },
      },
    ]);
    // The token derived by the key went with its project (deleted above); Bea's own is listed.
    expect(res.body.offboarding.derivedTokens).toEqual([{
      id: derived.id,
      serviceKeyId: serviceKey.id,
      projectId: expect.any(String),
      rotate: { method: 'POST', path: `${org}/agent-service-keys/${serviceKey.id}/tokens/${derived.id}/rotate` },
    }]);
    expect(await keyStatuses(org, rk.key, serviceKey.id, team.organization.id)).toEqual([401, 401, 401, 401]);
    expect(await t.app.get(AgentTokenService).resolve(derived.token)).not.toBeNull();
    const [revoked] = await t.dataSource.query(`SELECT revoked_at FROM api_keys WHERE id = $1`, [rk.id]);
    expect(revoked.revoked_at).not.toBeNull();
    const events = await t.dataSource.query(
      `SELECT action, actor_id, target_id, metadata FROM audit_events WHERE organization_id = $1 AND action IN ('api_key.revoked', 'member.removed') ORDER BY created_at, action`,
      [team.organization.id],
    );
    expect(events).toEqual([
      { action: 'api_key.revoked', actor_id: team.admin.id, target_id: rk.id, metadata: { name: 'bea automation', reason: 'member_removed', createdBy: bea.id } },
      {
        action: 'member.removed',
        actor_id: team.admin.id,
        target_id: bea.id,
        metadata: {
          role: 'admin',
          revokedTokens: 0,
          apiKeysRevoked: [rk.id],
          scimTokensEnded: [],
          serviceKeys: [serviceKey.id],
          derivedTokens: res.body.offboarding.derivedTokens.map((d: { id: string }) => d.id),
        },
      },
    ]);
  });

  it('demoting an admin revokes their rk_ keys; the answer says how many', async () => {
    const { team, bea, org, rk, serviceKey } = await teamWithSecondAdmin();
    const res = await api().patch(`${org}/members/${bea.id}`).auth(team.admin.jwt, bearer).send({ role: 'member' }).expect(200);
    expect(res.body).toMatchObject({ userId: bea.id, role: 'member', offboarding: { apiKeys: { outcome: 'revoked', count: 1 } } });
    expect(await keyStatuses(org, rk.key, serviceKey.id, team.organization.id)).toEqual([401, 401, 401, 401]);
    // Promoting them back does not bring a revoked key back.
    await api().patch(`${org}/members/${bea.id}`).auth(team.admin.jwt, bearer).send({ role: 'admin' }).expect(200);
    await api().get(`${org}/members`).auth(rk.key, bearer).expect(401);
  });

  it('with handOver=true the keys pass to the acting admin and keep working, audited', async () => {
    const { team, bea, org, rk, serviceKey } = await teamWithSecondAdmin();
    const res = await api().delete(`${org}/members/${bea.id}?handOver=true`).auth(team.admin.jwt, bearer).expect(200);
    expect(res.body.offboarding.apiKeys).toEqual({ outcome: 'handed_over', count: 1, items: [{ id: rk.id, name: 'bea automation' }] });
    expect(await keyStatuses(org, rk.key, serviceKey.id, team.organization.id)).toEqual([200, 201, 201, 200]);
    const [row] = await t.dataSource.query(`SELECT created_by, revoked_at FROM api_keys WHERE id = $1`, [rk.id]);
    expect(row).toEqual({ created_by: team.admin.id, revoked_at: null });
    const [event] = await t.dataSource.query(`SELECT actor_id, metadata FROM audit_events WHERE action = 'api_key.handed_over' AND target_id = $1`, [rk.id]);
    expect(event).toEqual({ actor_id: team.admin.id, metadata: { name: 'bea automation', reason: 'member_removed', createdBy: bea.id, handedOverTo: team.admin.id } });
  });

  it('refuses a bad handOver value and handing over to oneself', async () => {
    const { team, bea, org } = await teamWithSecondAdmin();
    const bad = await api().delete(`${org}/members/${bea.id}?handOver=yes`).auth(team.admin.jwt, bearer).expect(400);
    expect(bad.body.message).toEqual(['handOver must be true or false']);
    const self = await api().delete(`${org}/members/${bea.id}?handOver=true`).auth(bea.jwt, bearer).expect(400);
    expect(self.body).toMatchObject({ code: 'invalid_hand_over' });
    await api().get(`${org}/members`).auth(bea.jwt, bearer).expect(200);
  });

  it('a key whose creator lost the admin role some other way is refused at request time', async () => {
    const { team, bea, org, rk, serviceKey } = await teamWithSecondAdmin();
    // The role changes without going through the service (as a bug or a manual fix might do it).
    await t.dataSource.query(`UPDATE memberships SET role = 'member' WHERE organization_id = $1 AND user_id = $2`, [team.organization.id, bea.id]);
    expect(await keyStatuses(org, rk.key, serviceKey.id, team.organization.id)).toEqual([401, 401, 401, 401]);
    await t.dataSource.query(`UPDATE memberships SET role = 'admin' WHERE organization_id = $1 AND user_id = $2`, [team.organization.id, bea.id]);
    await api().get(`${org}/members`).auth(rk.key, bearer).expect(200);
    await t.dataSource.query(`DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2`, [team.organization.id, bea.id]);
    await api().get(`${org}/members`).auth(rk.key, bearer).expect(401);
  });
});
