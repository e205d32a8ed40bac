import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { connectWithVerifiedDomains, redirectUriFor, startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { signupOverHttp, SignedUp } from './factories/rest';

/**
 * An admin's removal sticks (SPEC §10): a person who joined just in time and was removed is not
 * added back by their next single sign-on; a new invitation lifts it.
 */
describe('Single sign-on: an admin removal sticks', () => {
  let t: TestApp;
  let idp: TestIdp;
  let admin: SignedUp;
  let domain: string;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' });
    admin = await signupOverHttp(t);
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [await redirectUriFor(t, admin.organization.id, admin.accessToken)] });
    domain = testDomain('removal');
    await connectWithVerifiedDomains(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer, emailDomains: [domain] });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  async function signIn(email: string, sub: string): Promise<string> {
    const started = await startSingleSignOn(t.baseUrl, email);
    const cookie = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!.split(';')[0]!;
    const res = await fetch(await idp.signInWithoutBrowser(started.headers.get('location')!, sub), { redirect: 'manual', headers: { cookie } });
    expect(res.status).toBe(303);
    return decodeURIComponent(res.headers.getSetCookie().find((c) => c.startsWith('ag_session='))!.split(';')[0]!.slice('ag_session='.length));
  }
  const isMember = async (userId: string) =>
    ((await t.dataSource.query('SELECT 1 FROM memberships WHERE organization_id = $1 AND user_id = $2', [admin.organization.id, userId])) as unknown[]).length === 1;

  it('the next single sign-on does not add a removed person back; a new invitation does', async () => {
    const email = `rem-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('rem-sub', { email, email_verified: true, name: 'Remy Removed' });
    const first = await signIn(email, 'rem-sub');
    const me = (await request(t.baseUrl).get('/api/me').auth(first, { type: 'bearer' }).expect(200)).body as { user: { id: string } };
    expect(await isMember(me.user.id)).toBe(true);

    await request(t.baseUrl).delete(`/api/organizations/${admin.organization.id}/members/${me.user.id}`).auth(admin.accessToken, { type: 'bearer' }).expect(200);
    const again = await signIn(email, 'rem-sub');
    expect(await isMember(me.user.id)).toBe(false);
    await request(t.baseUrl).get(`/api/organizations/${admin.organization.id}/projects`).auth(again, { type: 'bearer' }).expect(404);

    // A new invitation lifts it: accepted, then single sign-on keeps the membership.
    const invitation = (await request(t.baseUrl).post(`/api/organizations/${admin.organization.id}/members`).auth(admin.accessToken, { type: 'bearer' }).send({ email, role: 'member' }).expect(201))
      .body as { token: string };
    await request(t.baseUrl).post('/api/invitations/accept').auth(again, { type: 'bearer' }).send({ token: invitation.token }).expect(200);
    expect(await isMember(me.user.id)).toBe(true);
    await request(t.baseUrl).delete(`/api/organizations/${admin.organization.id}/members/${me.user.id}`).auth(admin.accessToken, { type: 'bearer' }).expect(200);
    const invited = (await request(t.baseUrl).post(`/api/organizations/${admin.organization.id}/members`).auth(admin.accessToken, { type: 'bearer' }).send({ email, role: 'member' }).expect(201))
      .body as { token: string };
    const third = await signIn(email, 'rem-sub');
    await request(t.baseUrl).post('/api/invitations/accept').auth(third, { type: 'bearer' }).send({ token: invited.token }).expect(200);
    await signIn(email, 'rem-sub');
    expect(await isMember(me.user.id)).toBe(true);
  });
});
