import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { MembershipDirectory } from '@app/tenancy';
import { addMember, createOrganization, createUser } from './factories';
import { sessionFor, signupOverHttp } from './factories/rest';
import { identityProviderPath, insertIdentityProvider, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';

const SCIM_JSON = 'application/scim+json';
const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const SCIM_PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * Two small things around single sign-on: the REST twin of the page's "I registered the new URI"
 * (clearing an identity provider's legacy redirect-URI flag), and the cleanup of membership
 * endings that can no longer matter (a SCIM deprovisioning's too: SCIM's own row keeps the person out).
 */
describe('identity provider housekeeping', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('POST …/identity-provider/redirect-uri/confirm clears the legacy flag (admin session only, audited once); 404 without an identity provider', async () => {
    const owner = await signupOverHttp(t);
    const orgId = owner.organization.id;
    const confirm = (jwt: string, id = orgId) => request(t.baseUrl).post(`${identityProviderPath(id)}/redirect-uri/confirm`).auth(jwt, { type: 'bearer' });
    await confirm(owner.accessToken).expect(404);
    await insertIdentityProvider(t, orgId, { issuer: 'https://idp.invalid' });
    await t.dataSource.query('UPDATE identity_providers SET legacy_redirect_uri = true WHERE organization_id = $1', [orgId]);

    const member = await createUser(t.dataSource);
    await addMember(t.dataSource, orgId, member.id, 'member');
    const memberJwt = (await t.app.get(SessionTokenService).issue(member.id)).accessToken;
    await confirm(memberJwt).expect(403);
    const other = await signupOverHttp(t);
    await confirm(other.accessToken).expect(404);

    const done = await confirm(owner.accessToken).expect(200);
    const shown = await request(t.baseUrl).get(identityProviderPath(orgId)).auth(owner.accessToken, { type: 'bearer' }).expect(200);
    expect(shown.body).toMatchObject({ redirectUri: done.body.redirectUri, legacyRedirectUri: false });
    expect(done.body.redirectUri).toMatch(new RegExp(`^${t.baseUrl}/auth/sso/callback/[A-Za-z0-9_-]+$`));
    await confirm(owner.accessToken).expect(200);
    const events = await t.dataSource.query(`SELECT actor_id, metadata->>'redirectUri' AS uri FROM audit_events WHERE organization_id = $1 AND action = 'identity_provider.redirect_uri_confirmed'`, [orgId]);
    expect(events).toEqual([{ actor_id: owner.user.id, uri: done.body.redirectUri }]);
  });

  it("the sessions cleanup forgets membership endings no live session predates, a SCIM deprovisioning's too (the person still cannot rejoin by invitation), and keeps removals and endings a live session predates", async () => {
    const domain = testDomain('endings');
    const owner = await signupOverHttp(t, { email: `owner@${domain}` });
    const org = owner.organization;
    await insertIdentityProvider(t, org.id, { issuer: 'https://idp.example.test', verifiedDomains: [domain] });
    const people = await Promise.all([1, 2, 3].map(() => createUser(t.dataSource)));
    const [settled, predated, removed] = people;
    for (const p of people) await addMember(t.dataSource, org.id, p.id, 'member');
    // A live session issued before its ending: the ending still closes the organisation to it.
    const live = await t.app.get(SessionTokenService).issue(predated.id);
    // An expired session issued before the ending: nothing left for the ending to close.
    await t.app.get(SessionTokenService).issue(settled.id);
    await t.dataSource.query(`UPDATE sessions SET created_at = now() - interval '2 days', expires_at = now() - interval '1 day' WHERE user_id = $1`, [settled.id]);
    const ending = (userId: string, flags: { removed?: boolean } = {}) =>
      t.dataSource.query(`INSERT INTO membership_endings (organization_id, user_id, ended_at, removed) VALUES ($1, $2, now() + interval '1 second', $3)`, [
        org.id,
        userId,
        flags.removed ?? false,
      ]);
    await ending(settled.id);
    await ending(predated.id);
    await ending(removed.id, { removed: true });
    // A member the organisation's SCIM client provisioned, then deprovisioned: no session of theirs predates the ending.
    const scimToken = (await request(t.baseUrl).post(`/api/organizations/${org.id}/scim-tokens`).auth(owner.accessToken, { type: 'bearer' }).send({ name: 'IdP' }).expect(201))
      .body.token as string;
    const scim = (req: request.Test) => req.auth(scimToken, { type: 'bearer' }).set('Content-Type', SCIM_JSON);
    const email = `ann-${randomUUID().slice(0, 6)}@${domain}`;
    const resource = (await scim(request(t.baseUrl).post('/scim/v2/Users')).send(JSON.stringify({ schemas: [SCIM_USER], userName: email })).expect(201)).body as { id: string };
    const [deprovisioned] = (await t.dataSource.query('SELECT id FROM users WHERE email = $1', [email])) as { id: string }[];
    expect(await isMember(org.id, deprovisioned!.id)).toBe(true);
    const deactivate = { schemas: [SCIM_PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] };
    await scim(request(t.baseUrl).patch(`/scim/v2/Users/${resource.id}`)).send(JSON.stringify(deactivate)).expect(200);
    expect(await isMember(org.id, deprovisioned!.id)).toBe(false);

    expect(await t.app.get(MembershipDirectory).forgetSettledEndings()).toBe(2);
    const left = await t.dataSource.query('SELECT user_id FROM membership_endings WHERE organization_id = $1 ORDER BY user_id', [org.id]);
    expect(left.map((r: { user_id: string }) => r.user_id)).toEqual([predated.id, removed.id].sort());
    // The live session still does not open the organisation.
    await request(t.baseUrl).get(`/api/organizations/${org.id}/projects`).auth(live.accessToken, { type: 'bearer' }).expect(401);
    // Its ending forgotten, the deprovisioned person still cannot claim an invitation of the organisation.
    const invitation = (await request(t.baseUrl).post(`/api/organizations/${org.id}/members`).auth(owner.accessToken, { type: 'bearer' }).send({ email, role: 'member' }).expect(201))
      .body.token as string;
    const claim = await request(t.baseUrl).post('/api/invitations/accept').auth(await sessionFor(t, deprovisioned!.id), { type: 'bearer' }).send({ token: invitation });
    expect(claim.status).toBe(404);
    expect(claim.body.code).toBe('invalid_invitation');
    expect(await isMember(org.id, deprovisioned!.id)).toBe(false);
  });

  async function isMember(organizationId: string, userId: string): Promise<boolean> {
    const rows = (await t.dataSource.query('SELECT 1 FROM memberships WHERE organization_id = $1 AND user_id = $2', [organizationId, userId])) as unknown[];
    return rows.length > 0;
  }
});
