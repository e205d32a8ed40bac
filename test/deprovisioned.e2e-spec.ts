import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { sessionFor, signupOverHttp, SignedUp } from './factories/rest';
import { connectWithVerifiedDomains, redirectUriFor, startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

const SCIM_JSON = 'application/scim+json';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * "Deprovisioned" is one check (docs/sso.md, "Deprovisioned is one check"): a person the
 * organisation's SCIM client deactivated is refused on every way back in, whether the way names
 * them by account (single sign-on of their account, an invitation they claim signed in) or by
 * email (a just-in-time single sign-on, a sign-up from an invitation link), and none of them
 * leaves a membership behind.
 */
describe('A person SCIM deprovisioned is refused on every way into the organisation', () => {
  let t: TestApp;
  let idp: TestIdp;
  let admin: SignedUp;
  let domain: string;
  let scimToken: string;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', SSO_STARTS_PER_IP_PER_MINUTE: '1000', SSO_CALLBACKS_PER_IP_PER_MINUTE: '1000' });
    admin = await signupOverHttp(t);
    const redirectUri = await redirectUriFor(t, admin.organization.id, admin.accessToken);
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [redirectUri] });
    domain = testDomain('deprov');
    await connectWithVerifiedDomains(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer, emailDomains: [domain] });
    scimToken = (await api().post(`${orgPath()}/scim-tokens`).auth(admin.accessToken, { type: 'bearer' }).send({ name: 'IdP' }).expect(201)).body.token as string;
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const api = () => request(t.baseUrl);
  const orgPath = () => `/api/organizations/${admin.organization.id}`;

  /** A person the SCIM client provisioned (their account made, its link pending), then deactivated. */
  async function deactivatedThroughScim(): Promise<{ id: string; email: string }> {
    const email = `ann-${randomUUID().slice(0, 6)}@${domain}`;
    const scim = (req: request.Test) => req.auth(scimToken, { type: 'bearer' }).set('Content-Type', SCIM_JSON);
    const resource = (await scim(api().post('/scim/v2/Users')).send(JSON.stringify({ schemas: [USER], userName: email })).expect(201)).body as { id: string };
    const deactivate = { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] };
    await scim(api().patch(`/scim/v2/Users/${resource.id}`)).send(JSON.stringify(deactivate)).expect(200);
    const [user] = (await t.dataSource.query('SELECT id FROM users WHERE email = $1', [email])) as { id: string }[];
    return { id: user!.id, email };
  }

  /**
   * The SCIM client's row of a deactivated person who has no account: an email of `domainOf`
   * (one the organisation no longer has verified, for a sign-up from a link, where a verified
   * domain's addresses are single sign-on's).
   */
  async function deactivatedWithoutAccount(domainOf: string): Promise<string> {
    const email = `bob-${randomUUID().slice(0, 6)}@${domainOf}`;
    await t.dataSource.query('INSERT INTO provisioned_users (organization_id, user_name, active) VALUES ($1, $2, false)', [admin.organization.id, email]);
    return email;
  }

  async function invite(email: string): Promise<string> {
    return (await api().post(`${orgPath()}/members`).auth(admin.accessToken, { type: 'bearer' }).send({ email, role: 'member' }).expect(201)).body.token as string;
  }

  /** The whole single sign-on of `email` as the IdP's `sub`: the callback's status and page. */
  async function singleSignOn(email: string, sub: string): Promise<{ status: number; text: string }> {
    idp.setAccount(sub, { email, email_verified: true, name: 'Deprovisioned Person' });
    const started = await startSingleSignOn(t.baseUrl, email);
    expect(started.status).toBe(303);
    const state = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!.split(';')[0]!;
    const callback = await idp.signInWithoutBrowser(started.headers.get('location')!, sub);
    const res = await fetch(callback, { redirect: 'manual', headers: { cookie: state } });
    return { status: res.status, text: await res.text() };
  }

  async function isMember(email: string): Promise<boolean> {
    const rows = (await t.dataSource.query('SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 AND lower(u.email) = $2', [
      admin.organization.id,
      email,
    ])) as unknown[];
    return rows.length > 0;
  }

  const SSO_REFUSAL = { status: 403, says: /identity provisioning removed your access/ };
  const LINK_REFUSAL = { status: 404, says: /"code":"invalid_invitation"/ };

  it.each([
    {
      way: 'single sign-on of their account (named by account)',
      refusal: SSO_REFUSAL,
      attempt: async () => {
        const person = await deactivatedThroughScim();
        return { email: person.email, ...(await singleSignOn(person.email, `sub-${randomUUID()}`)) };
      },
    },
    {
      way: 'an invitation they claim, signed in (named by account)',
      refusal: LINK_REFUSAL,
      attempt: async () => {
        const person = await deactivatedThroughScim();
        const token = await invite(person.email);
        const res = await api().post('/api/invitations/accept').auth(await sessionFor(t, person.id), { type: 'bearer' }).send({ token });
        return { email: person.email, status: res.status, text: JSON.stringify(res.body) };
      },
    },
    {
      way: 'a just-in-time single sign-on (named by email: no account yet)',
      refusal: SSO_REFUSAL,
      attempt: async () => {
        const email = await deactivatedWithoutAccount(domain);
        return { email, ...(await singleSignOn(email, `sub-${randomUUID()}`)) };
      },
    },
    {
      way: 'a password sign-up from an invitation link (named by email, then by the new account)',
      refusal: LINK_REFUSAL,
      attempt: async () => {
        const email = await deactivatedWithoutAccount(`elsewhere-${randomUUID().slice(0, 6)}.test`);
        const token = await invite(email);
        const res = await api().post('/api/auth/signup').send({ email, password: `pw-${randomUUID()}`, name: 'Bob', invitation: token });
        return { email, status: res.status, text: JSON.stringify(res.body) };
      },
    },
  ])('refuses $way', async ({ refusal, attempt }) => {
    const { email, status, text } = await attempt();
    expect(status).toBe(refusal.status);
    expect(text).toMatch(refusal.says);
    expect(await isMember(email)).toBe(false);
  });

  it("answers from the SCIM client's row alone: with it active again, the same person's claim goes through", async () => {
    const person = await deactivatedThroughScim();
    // Only the row changes (SCIM's own reactivation also restores the membership, leaving nothing to claim).
    await t.dataSource.query('UPDATE provisioned_users SET active = true WHERE organization_id = $1 AND user_name = $2', [admin.organization.id, person.email]);
    const token = await invite(person.email);
    await api().post('/api/invitations/accept').auth(await sessionFor(t, person.id), { type: 'bearer' }).send({ token }).expect(200);
    expect(await isMember(person.email)).toBe(true);
  });
});
