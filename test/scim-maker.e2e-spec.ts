import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { sessionFor, signupOverHttp } from './factories/rest';
import { insertIdentityProvider, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';

const SCIM_JSON = 'application/scim+json';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GATEWAY = 'urn:agent-gateway:params:scim:schemas:extension:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * A deprovisioned admin reinstating themselves (SPEC §10): `scim_` tokens follow the rule of `rk_`
 * keys (they end with their maker's admin role and never act on their maker), and a session opens
 * an organisation only if it was issued after the person's current membership began.
 */
describe('SCIM tokens and sessions against a deprovisioned admin', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const api = () => request(t.baseUrl);
  const scim = (token: string) => ({
    post: (path: string, body: object) => api().post(`/scim/v2${path}`).auth(token, { type: 'bearer' }).set('Content-Type', SCIM_JSON).send(JSON.stringify(body)),
    patch: (path: string, body: object) => api().patch(`/scim/v2${path}`).auth(token, { type: 'bearer' }).set('Content-Type', SCIM_JSON).send(JSON.stringify(body)),
    get: (path: string) => api().get(`/scim/v2${path}`).auth(token, { type: 'bearer' }),
  });
  const reinstate = { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true, [`${GATEWAY}:role`]: 'admin' } }] };
  const deactivate = { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] };

  /** An organisation whose owner made a scim_ token, and Mallory: an admin SCIM provisioned, with a session and a scim_ token of her own. */
  async function organizationWithMallory() {
    const domain = testDomain('maker');
    const owner = await signupOverHttp(t, { email: `owner@${domain}` });
    const orgId = owner.organization.id;
    await insertIdentityProvider(t, orgId, { issuer: 'https://idp.example.test', verifiedDomains: [domain] });
    const ownerToken = (await api().post(`/api/organizations/${orgId}/scim-tokens`).auth(owner.accessToken, { type: 'bearer' }).send({ name: 'Okta' }).expect(201)).body
      .token as string;
    const email = `mallory-${randomUUID().slice(0, 6)}@${domain}`;
    const resource = (await scim(ownerToken).post('/Users', { schemas: [USER], userName: email, [GATEWAY]: { role: 'admin' } }).expect(201)).body as { id: string };
    const [mallory] = (await t.dataSource.query('SELECT id FROM users WHERE email = $1', [email])) as { id: string }[];
    const session = await sessionFor(t, mallory.id);
    const made = (await api().post(`/api/organizations/${orgId}/scim-tokens`).auth(session, { type: 'bearer' }).send({ name: 'mallory' }).expect(201)).body as {
      id: string;
      token: string;
    };
    return { owner, orgId, domain, email, ownerToken, resource, mallory, session, malloryToken: made.token, malloryTokenId: made.id };
  }

  it('ends the tokens a deprovisioned admin made, so they cannot reinstate themselves; the deactivation lists them', async () => {
    const org = await organizationWithMallory();
    await scim(org.ownerToken).patch(`/Users/${org.resource.id}`, deactivate).expect(200);
    const attempt = await scim(org.malloryToken).patch(`/Users/${org.resource.id}`, reinstate);
    expect(attempt.status).toBe(401);
    expect((await scim(org.ownerToken).get(`/Users/${org.resource.id}`).expect(200)).body.active).toBe(false);
    const [event] = (await t.dataSource.query(`SELECT metadata FROM audit_events WHERE organization_id = $1 AND action = 'scim.user_deactivated'`, [org.orgId])) as {
      metadata: Record<string, unknown>;
    }[];
    expect(event.metadata.scimTokensEnded).toEqual([org.malloryTokenId]);
  });

  it("refuses a token's role change of its maker (403), and lets it deactivate its maker, which ends it", async () => {
    const org = await organizationWithMallory();
    const own = scim(org.malloryToken);
    const demote = await own.patch(`/Users/${org.resource.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: `${GATEWAY}:role`, value: 'member' }] });
    expect(demote.status).toBe(403);
    expect(demote.body.detail).toContain('the person who made it');
    await own.patch(`/Users/${org.resource.id}`, deactivate).expect(200);
    await own.get('/Users').expect(401);
    expect((await scim(org.ownerToken).get(`/Users/${org.resource.id}`).expect(200)).body.active).toBe(false);
  });

  it('a token cannot create its maker', async () => {
    const domain = testDomain('maker');
    const owner = await signupOverHttp(t, { email: `owner@${domain}` });
    await insertIdentityProvider(t, owner.organization.id, { issuer: 'https://idp.example.test', verifiedDomains: [domain] });
    const token = (await api().post(`/api/organizations/${owner.organization.id}/scim-tokens`).auth(owner.accessToken, { type: 'bearer' }).send({ name: 'Okta' }).expect(201))
      .body.token as string;
    const res = await scim(token).post('/Users', { schemas: [USER], userName: `owner@${domain}`, [GATEWAY]: { role: 'admin' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ status: '403', detail: expect.stringContaining('the person who made it') });
  });

  it("an old session never opens a membership that came back (401 session_predates_membership); a new one does", async () => {
    const org = await organizationWithMallory();
    const projects = `/api/organizations/${org.orgId}/projects`;
    await api().get(projects).auth(org.session, { type: 'bearer' }).expect(200);
    await scim(org.ownerToken).patch(`/Users/${org.resource.id}`, deactivate).expect(200);
    await api().get(projects).auth(org.session, { type: 'bearer' }).expect(404);
    // Another admin's token brings her back as admin: her 12-hour session stays shut out.
    await scim(org.ownerToken).patch(`/Users/${org.resource.id}`, reinstate).expect(200);
    const refused = await api().get(projects).auth(org.session, { type: 'bearer' }).expect(401);
    expect(refused.body).toMatchObject({ statusCode: 401, code: 'session_predates_membership' });
    // The dashboard sends that session to the sign-in page.
    const page = await api().get(`/orgs/${org.orgId}/projects`).set('Cookie', `ag_session=${org.session}`);
    expect(page.status).toBe(303);
    expect(page.headers.location).toMatch(/^\/login\?/);
    // /api/me does not list it as open.
    const me = await api().get('/api/me').auth(org.session, { type: 'bearer' }).expect(200);
    expect(me.body.memberships.map((m: { organization: { id: string } }) => m.organization.id)).not.toContain(org.orgId);
    await api().get(projects).auth(await sessionFor(t, org.mallory.id), { type: 'bearer' }).expect(200);
  });

  it('deprovisioning withdraws every pending invitation of the organisation to the person, so an old link does not bring them back', async () => {
    const org = await organizationWithMallory();
    const invite = async () =>
      (await api().post(`/api/organizations/${org.orgId}/members`).auth(org.owner.accessToken, { type: 'bearer' }).send({ email: org.email.toUpperCase(), role: 'admin' }).expect(201))
        .body as { id: string; token: string };
    const old = await invite();
    await scim(org.ownerToken).patch(`/Users/${org.resource.id}`, deactivate).expect(200);
    const rows = (await t.dataSource.query('SELECT withdrawn_at FROM invitations WHERE id = $1', [old.id])) as { withdrawn_at: Date | null }[];
    expect(rows[0]!.withdrawn_at).not.toBeNull();
    const attempt = await api().post('/api/invitations/accept').auth(await sessionFor(t, org.mallory.id), { type: 'bearer' }).send({ token: old.token });
    expect(attempt.status).toBe(404);
    const [event] = (await t.dataSource.query(`SELECT metadata FROM audit_events WHERE organization_id = $1 AND action = 'scim.user_deactivated'`, [org.orgId])) as {
      metadata: Record<string, unknown>;
    }[];
    expect(event.metadata.invitationsWithdrawn).toEqual([old.id]);
    expect((await t.dataSource.query('SELECT 1 FROM memberships WHERE organization_id = $1 AND user_id = $2', [org.orgId, org.mallory.id])) as unknown[]).toHaveLength(0);    // A new invitation does not bring a person SCIM deprovisioned back either; SCIM does.
    const fresh = await invite();
    await api().post('/api/invitations/accept').auth(await sessionFor(t, org.mallory.id), { type: 'bearer' }).send({ token: fresh.token }).expect(404);
    await scim(org.ownerToken).patch(`/Users/${org.resource.id}`, reinstate).expect(200);
    expect((await t.dataSource.query('SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2', [org.orgId, org.mallory.id])) as unknown[]).toEqual([{ role: 'admin' }]);
  });

  it("removal over REST ends the removed admin's scim_ tokens (listed in the answer and the event), or hands them over when asked", async () => {
    const org = await organizationWithMallory();
    const removed = await api().delete(`/api/organizations/${org.orgId}/members/${org.mallory.id}`).auth(org.owner.accessToken, { type: 'bearer' }).expect(200);
    expect(removed.body.offboarding.scimTokensEnded).toEqual([{ id: org.malloryTokenId, name: 'mallory' }]);
    await scim(org.malloryToken).get('/Users').expect(401);
    const [event] = (await t.dataSource.query(`SELECT metadata FROM audit_events WHERE organization_id = $1 AND action = 'member.removed'`, [org.orgId])) as {
      metadata: Record<string, unknown>;
    }[];
    expect(event.metadata.scimTokensEnded).toEqual([org.malloryTokenId]);

    const other = await organizationWithMallory();
    const demoted = await api()
      .patch(`/api/organizations/${other.orgId}/members/${other.mallory.id}?handOver=true`)
      .auth(other.owner.accessToken, { type: 'bearer' })
      .send({ role: 'member' })
      .expect(200);
    expect(demoted.body.offboarding.scimTokensHandedOver).toEqual([{ id: other.malloryTokenId, name: 'mallory' }]);
    await scim(other.malloryToken).get('/Users').expect(200);
    const [row] = (await t.dataSource.query('SELECT created_by FROM scim_tokens WHERE id = $1', [other.malloryTokenId])) as { created_by: string }[];
    expect(row.created_by).toBe(other.owner.user.id);
  });
});
