import { randomUUID } from 'node:crypto';
import { domainToASCII } from 'node:url';
import request from 'supertest';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { sessionFor, signupOverHttp, type SignedUp } from './factories/rest';
import { insertIdentityProvider, testDomain } from './helpers/identity';
import { listToolsRaw } from './helpers/mcp-raw';
import { startTestApp, TestApp } from './helpers/test-app';

const SCIM_JSON = 'application/scim+json';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GATEWAY = 'urn:agent-gateway:params:scim:schemas:extension:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const ISSUER = 'https://idp.example.test';

/**
 * SCIM 2.0 at /scim/v2 as an identity provider's provisioning client drives it: the requests
 * are the examples Okta and Microsoft Entra document for their SCIM clients (create, find by
 * userName, deactivate, replace, delete), with an organisation's scim_ token.
 */
describe('SCIM 2.0 provisioning', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const api = () => request(t.baseUrl);

  /**
   * An organisation (signed up over HTTP: its admin) with a connected identity provider and a
   * verified email domain of its own (written through the identity library: no IdP runs here), and a
   * scim_ token made by the admin over REST.
   */
  async function provisionedOrganization(domain = testDomain('scim')) {
    const admin = await signupOverHttp(t, { email: `ada@${domain}` });
    const orgId = admin.organization.id;
    await insertIdentityProvider(t, orgId, { issuer: ISSUER, verifiedDomains: [domain] });
    const created = await api()
      .post(`/api/organizations/${orgId}/scim-tokens`)
      .auth(admin.accessToken, { type: 'bearer' })
      .send({ name: 'Okta' })
      .expect(201);
    const token = created.body.token as string;
    const scim = {
      get: (path: string) => api().get(`/scim/v2${path}`).auth(token, { type: 'bearer' }),
      post: (path: string, body: object) => api().post(`/scim/v2${path}`).auth(token, { type: 'bearer' }).set('Content-Type', SCIM_JSON).send(JSON.stringify(body)),
      put: (path: string, body: object) => api().put(`/scim/v2${path}`).auth(token, { type: 'bearer' }).set('Content-Type', SCIM_JSON).send(JSON.stringify(body)),
      patch: (path: string, body: object) => api().patch(`/scim/v2${path}`).auth(token, { type: 'bearer' }).set('Content-Type', SCIM_JSON).send(JSON.stringify(body)),
      delete: (path: string) => api().delete(`/scim/v2${path}`).auth(token, { type: 'bearer' }),
    };
    return { admin, orgId, domain, token, tokenId: created.body.id as string, scim };
  }

  async function membership(orgId: string, userId: string): Promise<string | null> {
    const [row] = await t.dataSource.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [orgId, userId]);
    return (row?.role as string | undefined) ?? null;
  }

  async function accountOf(email: string) {
    const [row] = await t.dataSource.query(`SELECT id, name, password_hash FROM users WHERE lower(email) = $1`, [email]);
    return row as { id: string; name: string; password_hash: string } | undefined;
  }

  function scimError(status: number, scimType?: string) {
    return { schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}), detail: expect.any(String) };
  }

  describe('scim_ tokens (admin REST)', () => {
    it('are shown once, listed by hint without the secret, revoked, and audited', async () => {
      const { admin, orgId, token, tokenId } = await provisionedOrganization();
      expect(token).toMatch(/^scim_[0-9A-Za-z]{49}$/);
      const list = await api().get(`/api/organizations/${orgId}/scim-tokens`).auth(admin.accessToken, { type: 'bearer' }).expect(200);
      expect(list.body.items).toEqual([
        { id: tokenId, name: 'Okta', hint: `scim_…${token.slice(-4)}`, createdAt: expect.any(String), createdBy: admin.user.id, lastUsedAt: null, expiresAt: null },
      ]);
      expect(JSON.stringify(list.body)).not.toContain(token);
      const [stored] = await t.dataSource.query(`SELECT token_hash FROM scim_tokens WHERE id = $1`, [tokenId]);
      expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
      await api().get('/scim/v2/Users').auth(token, { type: 'bearer' }).expect(200);
      const used = await api().get(`/api/organizations/${orgId}/scim-tokens`).auth(admin.accessToken, { type: 'bearer' }).expect(200);
      expect(used.body.items[0].lastUsedAt).not.toBeNull();
      await api().delete(`/api/organizations/${orgId}/scim-tokens/${tokenId}`).auth(admin.accessToken, { type: 'bearer' }).expect(200);
      const refused = await api().get('/scim/v2/Users').auth(token, { type: 'bearer' }).expect(401);
      expect(refused.body).toEqual(scimError(401));
      await api().delete(`/api/organizations/${orgId}/scim-tokens/${tokenId}`).auth(admin.accessToken, { type: 'bearer' }).expect(404);
      const events = await t.dataSource.query(
        `SELECT action, actor_type, actor_id, target_id FROM audit_events WHERE organization_id = $1 AND action LIKE 'scim_token.%' ORDER BY created_at`,
        [orgId],
      );
      expect(events).toEqual([
        { action: 'scim_token.created', actor_type: 'user', actor_id: admin.user.id, target_id: tokenId },
        { action: 'scim_token.revoked', actor_type: 'user', actor_id: admin.user.id, target_id: tokenId },
      ]);
    });

    it('are made by admins only, and end with the admin role of the admin who made them', async () => {
      const { admin, orgId, domain, token, scim } = await provisionedOrganization();
      const created = await scim.post('/Users', { schemas: [USER], userName: `mia@${domain}`, [GATEWAY]: { role: 'admin' } }).expect(201);
      const mia = await accountOf(`mia@${domain}`);
      const miaJwt = await sessionFor(t, mia!.id);
      // Mia, an admin now, makes a token; a member may not.
      const miasToken = (await api().post(`/api/organizations/${orgId}/scim-tokens`).auth(miaJwt, { type: 'bearer' }).send({ name: 'Entra' }).expect(201)).body.token as string;
      await scim.patch(`/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: GATEWAY + ':role', value: 'member' }] }).expect(200);
      // Mia is demoted: the token she made ends with her admin role, as her rk_ keys do (SPEC §10).
      await api().get('/scim/v2/Users').auth(miasToken, { type: 'bearer' }).expect(401);
      await api().post(`/api/organizations/${orgId}/scim-tokens`).auth(await sessionFor(t, mia!.id), { type: 'bearer' }).send({ name: 'x' }).expect(403);
      await scim.delete(`/Users/${created.body.id}`).expect(204);
      await api().get('/scim/v2/Users').auth(token, { type: 'bearer' }).expect(200);
      await api().post(`/api/organizations/${orgId}/scim-tokens`).auth(admin.accessToken, { type: 'bearer' }).send({ name: '' }).expect(400);
    });
  });

  describe("Okta's requests", () => {
    it('creates the account, its membership and a pending link; finds it by userName; replaces it; deactivates it', async () => {
      const { orgId, domain, tokenId, scim } = await provisionedOrganization();
      const email = `test.user@${domain}`;
      // Okta looks the person up before creating them.
      const lookup = await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=100`).expect(200);
      expect(lookup.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(lookup.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
      const created = await scim
        .post('/Users', {
          schemas: [USER],
          userName: email,
          name: { givenName: 'Test', familyName: 'User' },
          emails: [{ primary: true, value: email, type: 'work' }],
          displayName: 'Test User',
          locale: 'en-US',
          externalId: '00ujl29u0le5T6Aj10h7',
          groups: [],
          password: '1mz050nq',
          active: true,
        })
        .expect(201);
      expect(created.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(created.headers.location).toBe(`${t.config.baseUrl}/scim/v2/Users/${created.body.id}`);
      expect(created.body).toEqual({
        schemas: [USER, GATEWAY],
        id: expect.any(String),
        externalId: '00ujl29u0le5T6Aj10h7',
        userName: email,
        name: { givenName: 'Test', familyName: 'User', formatted: 'Test User' },
        displayName: 'Test User',
        active: true,
        emails: [{ value: email, type: 'work', primary: true }],
        [GATEWAY]: { role: 'member' },
        meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String), location: created.headers.location },
      });
      const account = await accountOf(email);
      expect(account).toEqual({ id: expect.any(String), name: 'Test User', password_hash: '!' });
      expect(await membership(orgId, account!.id)).toBe('member');
      expect(await t.dataSource.query(`SELECT issuer, subject FROM identity_links WHERE user_id = $1`, [account!.id])).toEqual([{ issuer: ISSUER, subject: null }]);
      const found = await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}&startIndex=1&count=100`).expect(200);
      expect(found.body).toMatchObject({ totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [{ id: created.body.id, userName: email }] });
      await scim.get(`/Users/${created.body.id}`).expect(200);
      // Okta's PUT sends the whole resource back.
      const replaced = await scim
        .put(`/Users/${created.body.id}`, {
          schemas: [USER],
          id: created.body.id,
          userName: email,
          name: { givenName: 'Another', familyName: 'User' },
          emails: [{ primary: true, value: email, type: 'work' }],
          displayName: 'Another User',
          externalId: '00ujl29u0le5T6Aj10h7',
          groups: [],
          active: true,
          meta: created.body.meta,
        })
        .expect(200);
      expect(replaced.body).toMatchObject({ name: { givenName: 'Another', familyName: 'User' }, displayName: 'Another User', active: true });
      expect((await accountOf(email))!.name).toBe('Another User');
      // Okta's deactivation: a value object without a path.
      const deactivated = await scim.patch(`/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] }).expect(200);
      expect(deactivated.body.active).toBe(false);
      expect(await membership(orgId, account!.id)).toBeNull();
      const events = await t.dataSource.query(
        `SELECT action, actor_type, actor_id FROM audit_events WHERE organization_id = $1 AND action IN ('scim.user_created', 'scim.user_updated', 'scim.user_deactivated', 'member.added', 'member.removed') ORDER BY created_at, action`,
        [orgId],
      );
      expect(events).toEqual([
        { action: 'member.added', actor_type: 'scim_token', actor_id: tokenId },
        { action: 'scim.user_created', actor_type: 'scim_token', actor_id: tokenId },
        { action: 'scim.user_updated', actor_type: 'scim_token', actor_id: tokenId },
        { action: 'member.removed', actor_type: 'scim_token', actor_id: tokenId },
        { action: 'scim.user_deactivated', actor_type: 'scim_token', actor_id: tokenId },
      ]);
      // Reactivation brings the membership back with the role.
      await scim.patch(`/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] }).expect(200);
      expect(await membership(orgId, account!.id)).toBe('member');
    });
  });

  describe("Microsoft Entra's requests", () => {
    it('creates with its extension schemas, patches with "Replace", deactivates with the string "False", deletes', async () => {
      const { orgId, domain, scim } = await provisionedOrganization();
      const email = `test_user_ab6490ee@${domain}`;
      await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`).expect(200);
      const created = await scim
        .post('/Users', {
          schemas: [USER, ENTERPRISE],
          externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
          userName: email,
          active: true,
          emails: [{ primary: true, type: 'work', value: email }],
          meta: { resourceType: 'User' },
          name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
          roles: [],
          [ENTERPRISE]: { department: 'Engineering' },
        })
        .expect(201);
      const id = created.body.id as string;
      const byExternalId = await scim.get(`/Users?filter=${encodeURIComponent('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`).expect(200);
      expect(byExternalId.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
      const patched = await scim
        .patch(`/Users/${id}`, {
          schemas: [PATCH_OP],
          Operations: [
            { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
            { op: 'Add', path: 'emails[type eq "work"].value', value: email },
            { op: 'Replace', path: `${ENTERPRISE}:department`, value: 'Sales' },
            { op: 'Add', path: `${GATEWAY}:role`, value: 'admin' },
          ],
        })
        .expect(200);
      expect(patched.body).toMatchObject({ name: { givenName: 'givenName', familyName: 'updatedFamilyName' }, [GATEWAY]: { role: 'admin' } });
      const account = await accountOf(email);
      expect(await membership(orgId, account!.id)).toBe('admin');
      const disabled = await scim.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] }).expect(200);
      expect(disabled.body.active).toBe(false);
      expect(await membership(orgId, account!.id)).toBeNull();
      await scim.delete(`/Users/${id}`).expect(204);
      expect((await scim.get(`/Users/${id}`).expect(404)).body).toEqual(scimError(404));
      const list = await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`).expect(200);
      expect(list.body.totalResults).toBe(0);
      // Provisioned anew after the deletion: a new resource, the same account.
      const again = await scim.post('/Users', { schemas: [USER], userName: email, active: true }).expect(201);
      expect(again.body.id).not.toBe(id);
      expect(await membership(orgId, account!.id)).toBe('member');
    });
  });

  it('invites an email that already has an account: no link, the account keeps its name', async () => {
    // Signed up before the domain was verified (afterwards a password sign-up is refused, SPEC §10).
    const domain = testDomain('scim');
    const existing = await signupOverHttp(t, { email: `ben@${domain}`, name: 'Ben Own Name' });
    const { orgId, scim } = await provisionedOrganization(domain);
    const created = await scim.post('/Users', { schemas: [USER], userName: `Ben@${domain}`, name: { givenName: 'Benjamin', familyName: 'Okta' } }).expect(201);
    expect(await membership(orgId, existing.user.id)).toBeNull();
    const invitations = await t.dataSource.query(`SELECT email, role, accepted_at, withdrawn_at FROM invitations WHERE organization_id = $1`, [orgId]);
    expect(invitations).toEqual([{ email: `ben@${domain}`, role: 'member', accepted_at: null, withdrawn_at: null }]);
    expect(await t.dataSource.query(`SELECT 1 FROM identity_links WHERE user_id = $1`, [existing.user.id])).toEqual([]);
    await scim.put(`/Users/${created.body.id}`, { schemas: [USER], userName: `ben@${domain}`, displayName: 'Benjamin From Okta' }).expect(200);
    expect((await accountOf(`ben@${domain}`))!.name).toBe('Ben Own Name');
    // A role change while the invitation is pending sends it anew with that role.
    await scim.patch(`/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: `${GATEWAY}:role`, value: 'admin' }] }).expect(200);
    const resent = await t.dataSource.query(`SELECT role, withdrawn_at IS NULL AS open FROM invitations WHERE organization_id = $1 ORDER BY created_at`, [orgId]);
    expect(resent).toEqual([{ role: 'member', open: false }, { role: 'admin', open: true }]);
    // Deactivated before accepting: the invitation is withdrawn.
    await scim.patch(`/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }).expect(200);
    expect(await t.dataSource.query(`SELECT 1 FROM invitations WHERE organization_id = $1 AND withdrawn_at IS NULL`, [orgId])).toEqual([]);
  });

  it('creates people of an internationalised verified domain, their address written in Unicode or in its ASCII form', async () => {
    const label = `bücher-${randomUUID().slice(0, 8)}`;
    const ascii = domainToASCII(`${label}.example.com`);
    expect(ascii).toMatch(/^xn--/);
    const { orgId, scim } = await provisionedOrganization(ascii);
    await scim.post('/Users', { schemas: [USER], userName: `grace@${label}.example.com`, active: true }).expect(201);
    expect(await membership(orgId, (await accountOf(`grace@${label}.example.com`))!.id)).toBe('member');
    await scim.post('/Users', { schemas: [USER], userName: `alan@${ascii}`, active: true }).expect(201);
    expect(await membership(orgId, (await accountOf(`alan@${ascii}`))!.id)).toBe('member');
    // Another internationalised domain is still not one of the organisation's.
    const other = await scim.post('/Users', { schemas: [USER], userName: `ada@münchen-${randomUUID().slice(0, 8)}.example.com`, active: true }).expect(400);
    expect(other.body).toEqual(scimError(400, 'invalidValue'));
  });

  it('lists in pages with startIndex and count', async () => {
    const { domain, scim } = await provisionedOrganization();
    for (const name of ['p1', 'p2', 'p3']) await scim.post('/Users', { schemas: [USER], userName: `${name}@${domain}` }).expect(201);
    const first = await scim.get('/Users?startIndex=1&count=2').expect(200);
    expect(first.body).toMatchObject({ totalResults: 3, startIndex: 1, itemsPerPage: 2 });
    expect(first.body.Resources.map((r: { userName: string }) => r.userName)).toEqual([`p1@${domain}`, `p2@${domain}`]);
    const second = await scim.get('/Users?startIndex=3&count=2').expect(200);
    expect(second.body).toMatchObject({ totalResults: 3, startIndex: 3, itemsPerPage: 1 });
    expect(second.body.Resources.map((r: { userName: string }) => r.userName)).toEqual([`p3@${domain}`]);
    const none = await scim.get('/Users?count=0').expect(200);
    expect(none.body).toMatchObject({ totalResults: 3, itemsPerPage: 0, Resources: [] });
    expect((await scim.get('/Users?count=ten').expect(400)).body).toEqual(scimError(400, 'invalidValue'));
  });

  it('answers bad requests in the SCIM error format, never a 500', async () => {
    const { domain, scim } = await provisionedOrganization();
    const other = await provisionedOrganization();
    const created = await scim.post('/Users', { schemas: [USER], userName: `dup@${domain}` }).expect(201);
    expect((await scim.get(`/Users?filter=${encodeURIComponent('userName co "dup"')}`).expect(400)).body).toEqual(scimError(400, 'invalidFilter'));
    expect((await scim.get(`/Users?filter=${encodeURIComponent('nickName eq "x"')}`).expect(400)).body).toEqual(scimError(400, 'invalidFilter'));
    expect((await scim.get('/Users?filter=garbage').expect(400)).body).toEqual(scimError(400, 'invalidFilter'));
    const duplicate = await scim.post('/Users', { schemas: [USER], userName: `DUP@${domain}` }).expect(409);
    expect(duplicate.body).toEqual(scimError(409, 'uniqueness'));
    expect(duplicate.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect((await scim.post('/Users', { schemas: [USER], userName: `someone@unverified-${randomUUID().slice(0, 6)}.example` }).expect(400)).body).toEqual(scimError(400, 'invalidValue'));
    expect((await scim.post('/Users', { schemas: [USER], userName: `someone@${other.domain}` }).expect(400)).body).toEqual(scimError(400, 'invalidValue'));
    const pending = testDomain('pending');
    await insertIdentityProvider(t, other.orgId, { issuer: ISSUER, verifiedDomains: [other.domain], pendingDomains: [pending] });
    expect((await other.scim.post('/Users', { schemas: [USER], userName: `someone@${pending}` }).expect(400)).body).toEqual(scimError(400, 'invalidValue'));
    expect((await scim.post('/Users', { schemas: [USER], userName: 'not an email' }).expect(400)).body).toEqual(scimError(400, 'invalidValue'));
    expect((await scim.post('/Users', { schemas: [USER] }).expect(400)).body).toEqual(scimError(400, 'invalidValue'));
    expect((await scim.post('/Users', { schemas: [USER], userName: `x@${domain}`, favouriteColour: 'red' }).expect(400)).body).toEqual(scimError(400, 'invalidPath'));
    const path = `/Users/${created.body.id}`;
    expect((await scim.patch(path, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'favouriteColour', value: 'red' }] }).expect(400)).body).toEqual(scimError(400, 'invalidPath'));
    expect((await scim.patch(path, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { nickname: 'ok', shoeSize: 44 } }] }).expect(400)).body).toEqual(scimError(400, 'invalidPath'));
    expect((await scim.patch(path, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: 'maybe' }] }).expect(400)).body).toEqual(scimError(400, 'invalidValue'));
    expect((await scim.patch(path, { schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'active', value: false }] }).expect(400)).body).toEqual(scimError(400, 'invalidSyntax'));
    expect((await scim.patch(path, { schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }).expect(400)).body).toEqual(scimError(400, 'noTarget'));
    expect((await scim.patch(path, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: `new@${domain}` }] }).expect(400)).body).toEqual(scimError(400, 'mutability'));
    expect((await scim.patch(path, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: `${GATEWAY}:role`, value: 'owner' }] }).expect(400)).body).toEqual(scimError(400, 'invalidValue'));
    expect((await scim.patch(path, { Operations: [] }).expect(400)).body).toEqual(scimError(400, 'invalidSyntax'));
    expect((await scim.get(`/Users/${randomUUID()}`).expect(404)).body).toEqual(scimError(404));
    expect((await scim.get('/Users/not-a-uuid').expect(404)).body).toEqual(scimError(404));
    expect((await scim.get('/Groups').expect(404)).body).toEqual(scimError(404));
    const malformed = await api().post('/scim/v2/Users').auth(other.token, { type: 'bearer' }).set('Content-Type', SCIM_JSON).send('{"userName":').expect(400);
    expect(malformed.body).toEqual(scimError(400, 'invalidSyntax'));
    const form = await api().post('/scim/v2/Users').auth(other.token, { type: 'bearer' }).type('form').send('userName=x').expect(400);
    expect(form.body).toEqual(scimError(400, 'invalidSyntax'));
    expect((await scim.get('/Users?filter=%00').expect(400)).body).toEqual(scimError(400, 'invalidValue'));
    let deep: unknown = 'x';
    for (let i = 0; i < 70; i++) deep = { a: deep };
    expect((await scim.post('/Users', { schemas: [USER], userName: `deep@${domain}`, deep }).expect(400)).body).toEqual(scimError(400, 'invalidSyntax'));
  });

  it('describes itself: ServiceProviderConfig, Schemas, ResourceTypes', async () => {
    const { scim } = await provisionedOrganization();
    const config = await scim.get('/ServiceProviderConfig').expect(200);
    expect(config.body).toMatchObject({ patch: { supported: true }, bulk: { supported: false }, filter: { supported: true, maxResults: 200 }, authenticationSchemes: [{ type: 'oauthbearertoken' }] });
    const types = await scim.get('/ResourceTypes').expect(200);
    expect(types.body.Resources).toEqual([expect.objectContaining({ id: 'User', endpoint: '/Users', schema: USER, schemaExtensions: [{ schema: GATEWAY, required: false }] })]);
    const schemas = await scim.get('/Schemas').expect(200);
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toEqual([USER, GATEWAY]);
    await scim.get(`/Schemas/${GATEWAY}`).expect(200);
  });

  it("opens only its own organisation's /scim/v2, and nothing else", async () => {
    const a = await provisionedOrganization();
    const b = await provisionedOrganization();
    const created = await a.scim.post('/Users', { schemas: [USER], userName: `only-a@${a.domain}` }).expect(201);
    // B's token does not see A's people.
    expect((await b.scim.get(`/Users/${created.body.id}`).expect(404)).body).toEqual(scimError(404));
    await b.scim.patch(`/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] }).expect(404);
    await b.scim.delete(`/Users/${created.body.id}`).expect(404);
    expect((await b.scim.get(`/Users?filter=${encodeURIComponent(`userName eq "only-a@${a.domain}"`)}`).expect(200)).body.totalResults).toBe(0);
    // A scim_ token opens no REST route, not even its own organisation's.
    const rest = await api().get(`/api/organizations/${a.orgId}/members`).auth(a.token, { type: 'bearer' }).expect(401);
    expect(rest.body.message).toMatch(/scim_ token opens \/scim\/v2 only/);
    await api().get(`/api/organizations/${a.orgId}/scim-tokens`).auth(a.token, { type: 'bearer' }).expect(401);
    await listToolsRaw(t.baseUrl, a.token).then((res) => expect(res.status).toBe(401));
    // Other credentials do not open /scim/v2.
    expect((await api().get('/scim/v2/Users').expect(401)).body).toEqual(scimError(401));
    await api().get('/scim/v2/Users').auth(a.admin.accessToken, { type: 'bearer' }).expect(401);
    const forged = `scim_${'A'.repeat(49)}`;
    await api().get('/scim/v2/Users').auth(forged, { type: 'bearer' }).expect(401);
  });

  describe('deactivation is an offboarding in that organisation', () => {
    /** A provisioned admin with a session, an AI client's agent token and an rk_ key of their own, in the organisation. */
    async function personWithAccess(org: Awaited<ReturnType<typeof provisionedOrganization>>) {
      const email = `kim-${randomUUID().slice(0, 6)}@${org.domain}`;
      const created = await org.scim.post('/Users', { schemas: [USER], userName: email, displayName: 'Kim', [GATEWAY]: { role: 'admin' } }).expect(201);
      const kim = (await accountOf(email))!;
      const jwt = await sessionFor(t, kim.id);
      const project = await createProject(t.dataSource, org.orgId);
      const { accessToken } = await insertConnectedClient(t.dataSource, { userId: kim.id, organizationId: org.orgId, projectId: project.id });
      const rk = (await api().post(`/api/organizations/${org.orgId}/api-keys`).auth(jwt, { type: 'bearer' }).send({ name: 'kim automation', permissions: ['projects:read'] }).expect(201)).body as { key: string };
      const serviceKey = (await api().post(`/api/organizations/${org.orgId}/agent-service-keys`).auth(jwt, { type: 'bearer' }).send({ name: 'kim machine' }).expect(201)).body as { id: string };
      const statuses = async () => [
        (await api().get(`/api/organizations/${org.orgId}/projects`).auth(jwt, { type: 'bearer' })).status,
        (await listToolsRaw(t.baseUrl, accessToken)).status,
        (await api().get(`/api/organizations/${org.orgId}/projects`).auth(rk.key, { type: 'bearer' })).status,
      ];
      return { id: created.body.id as string, kim, jwt, statuses, serviceKey };
    }

    it("refuses the person's session, agent token and rk_ key at their next request (Okta's PATCH)", async () => {
      const org = await provisionedOrganization();
      const person = await personWithAccess(org);
      expect(await person.statuses()).toEqual([200, 200, 200]);
      await org.scim.patch(`/Users/${person.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] }).expect(200);
      expect(await person.statuses()).toEqual([404, 401, 401]);
      const [event] = await t.dataSource.query(
        `SELECT metadata FROM audit_events WHERE organization_id = $1 AND action = 'scim.user_deactivated'`,
        [org.orgId],
      );
      expect(event.metadata).toMatchObject({ membershipRemoved: true, serviceKeysToRotate: [{ id: person.serviceKey.id, name: 'kim machine' }] });
      // The person's account and their other organisations are untouched.
      await api().get('/api/me').auth(person.jwt, { type: 'bearer' }).expect(200);
    });

    it('a DELETE does the same (Entra)', async () => {
      const org = await provisionedOrganization();
      const person = await personWithAccess(org);
      await org.scim.delete(`/Users/${person.id}`).expect(204);
      expect(await person.statuses()).toEqual([404, 401, 401]);
    });

    it('never removes or demotes the last admin', async () => {
      const org = await provisionedOrganization();
      // The admin who signed up is provisioned too (already a member: no invitation), by a token
      // another admin made (a token never creates its own maker, SPEC §10); that admin then leaves.
      const bob = await org.scim.post('/Users', { schemas: [USER], userName: `bob@${org.domain}`, [GATEWAY]: { role: 'admin' } }).expect(201);
      const bobJwt = await sessionFor(t, (await accountOf(`bob@${org.domain}`))!.id);
      const bobsToken = (await api().post(`/api/organizations/${org.orgId}/scim-tokens`).auth(bobJwt, { type: 'bearer' }).send({ name: 'Bob' }).expect(201)).body.token as string;
      const admin = await api().post('/scim/v2/Users').auth(bobsToken, { type: 'bearer' }).set('Content-Type', SCIM_JSON).send(JSON.stringify({ schemas: [USER], userName: `ada@${org.domain}`, [GATEWAY]: { role: 'admin' } })).expect(201);
      expect(await t.dataSource.query(`SELECT 1 FROM invitations WHERE organization_id = $1`, [org.orgId])).toEqual([]);
      await org.scim.delete(`/Users/${bob.body.id}`).expect(204);
      const path = `/Users/${admin.body.id}`;
      // Ada's own token cannot change her role at all (403); removing her is the last-admin rule's (409).
      const demote = await org.scim.patch(path, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: `${GATEWAY}:role`, value: 'member' }] }).expect(403);
      expect(demote.body).toEqual(scimError(403));
      await org.scim.patch(path, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] }).expect(409);
      await org.scim.delete(path).expect(409);
      expect(await membership(org.orgId, org.admin.user.id)).toBe('admin');
      expect((await org.scim.get(path).expect(200)).body).toMatchObject({ active: true, [GATEWAY]: { role: 'admin' } });
      await api().get(`/api/organizations/${org.orgId}/members`).auth((org.admin as SignedUp).accessToken, { type: 'bearer' }).expect(200);
    });
  });
});
