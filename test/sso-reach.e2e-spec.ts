import { decodeJwt, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { IdentityProviderDirectory } from '@app/identity';
import { MembershipDirectory } from '@app/tenancy';
import { addMember, createOrganization, createProject, createUser } from './factories';
import { insertConnectedClient } from './factories/grants';
import { signupOverHttp } from './factories/rest';
import { authorizePath, formChoices, openConsent, pkcePair, registerClient, RegisteredTestClient, TestBrowser } from './factories/oauth';
import { connectWithVerifiedDomains, startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

const ISSUER_X = 'https://idp-x.example.test';
const ISSUER_Y = 'https://idp-y.example.test';
const SSO_REQUIRED = {
  statusCode: 403,
  code: 'sso_required',
  error: 'Forbidden',
  message: 'This organization requires single sign-on: sign in with single sign-on (/auth/sso/start) to open it',
};
/**
 * What a session opens (docs/sso.md, "What a session opens"): a password session opens nothing in
 * an organisation that requires single sign-on; a single sign-on session opens the organisations
 * whose identity provider is its issuer and, since SPEC §10, the person's other organisations that
 * do not require single sign-on. Most single sign-on sessions here are
 * issued by the session-issuing service with the issuer, as the single sign-on callback issues
 * them (issuers X and Y are names only); one test signs in for real through the test identity
 * provider (`/auth/sso/start` → the IdP → `/auth/sso/callback`).
 */
describe('what a session opens: single sign-on and "require single sign-on"', () => {
  let t: TestApp;
  let idp: TestIdp;
  let client: RegisteredTestClient;
  /** The person: a password account, member of A, B and C. */
  let person: { id: string; email: string; password: string };
  /** A: identity provider X, requires single sign-on. B: identity provider Y, does not. C: no identity provider. */
  let orgA: { id: string; name: string };
  let orgB: { id: string; name: string };
  let orgC: { id: string; name: string };
  /** Requires single sign-on through X; the person is not a member. */
  let outside: { id: string; name: string };
  const projects: Record<'A' | 'B' | 'C', { id: string; name: string }> = {} as never;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000', IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' });
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [`${t.baseUrl}/auth/sso/callback`] });
    client = await registerClient(t.baseUrl, { client_name: 'Reach Client' });
    person = await createUser(t.dataSource, { email: `reach-${randomUUID().slice(0, 8)}@example.test` });
    orgA = await createOrganization(t.dataSource, 'Org A (SSO required)');
    orgB = await createOrganization(t.dataSource, 'Org B (SSO optional)');
    orgC = await createOrganization(t.dataSource, 'Org C (passwords)');
    outside = await createOrganization(t.dataSource, 'Org outside');
    await addMember(t.dataSource, orgA.id, person.id, 'member');
    await addMember(t.dataSource, orgB.id, person.id, 'admin');
    await addMember(t.dataSource, orgC.id, person.id, 'admin');
    projects.A = await createProject(t.dataSource, orgA.id, 'Project of A');
    projects.B = await createProject(t.dataSource, orgB.id, 'Project of B');
    projects.C = await createProject(t.dataSource, orgC.id, 'Project of C');
    const providers = t.app.get(IdentityProviderDirectory);
    const connect = (organizationId: string, issuer: string, requireSso: boolean) =>
      providers.save({ organizationId, issuer, clientId: `client-${organizationId}`, clientSecret: 'not-used-here', defaultRole: 'member', requireSso }, t.dataSource.manager);
    await connect(orgA.id, ISSUER_X, true);
    await connect(orgB.id, ISSUER_Y, false);
    await connect(outside.id, ISSUER_X, true);
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const api = () => request(t.baseUrl);
  /** A password session, through the real sign-in route. */
  async function passwordSession(): Promise<string> {
    const res = await api().post('/api/auth/login').send({ email: person.email, password: person.password }).expect(200);
    return res.body.accessToken as string;
  }
  /** A single sign-on session through `issuer`, issued as the single sign-on callback issues it. */
  async function ssoSession(issuer: string, userId = person.id): Promise<string> {
    return (await t.app.get(SessionTokenService).issue(userId, { ip: '127.0.0.1', userAgent: 'reach-test' }, { ssoIssuer: issuer })).accessToken;
  }
  const orgIds = (body: { items: { id: string }[] }) => body.items.map((o) => o.id).sort();
  const memberOrgIds = (body: { memberships: { organization: { id: string } }[] }) => body.memberships.map((m) => m.organization.id).sort();

  function consentPath() {
    return authorizePath({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: client.redirect_uris[0]!,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'reach',
      resource: `${t.baseUrl}/api/mcp`,
    });
  }

  it('a session JWT carries sso_iss only for a single sign-on, and the sign-in record keeps the issuer', async () => {
    const password = await passwordSession();
    expect(decodeJwt(password).sso_iss).toBeUndefined();
    const sso = await ssoSession(ISSUER_X);
    const claims = decodeJwt(sso);
    expect(claims.sso_iss).toBe(ISSUER_X);
    expect(await t.app.get(SessionTokenService).resolve(sso)).toMatchObject({ userId: person.id, ssoIssuer: ISSUER_X });
    expect(await t.app.get(SessionTokenService).resolve(password)).toMatchObject({ userId: person.id, ssoIssuer: null });
    const rows = await t.dataSource.query('SELECT id, sso_issuer FROM sessions WHERE id = ANY($1) ORDER BY sso_issuer NULLS FIRST', [
      [decodeJwt(password).jti, claims.jti],
    ]);
    expect(rows).toEqual([
      { id: decodeJwt(password).jti, sso_issuer: null },
      { id: claims.jti, sso_issuer: ISSUER_X },
    ]);
  });

  it('refuses a session JWT whose sso_iss is not a non-empty string, even signed with the real key', async () => {
    const key = new TextEncoder().encode(t.config.sessionSecret);
    for (const ssoIss of [42, '', ['https://idp-x.example.test']]) {
      const jwt = await new SignJWT({ typ: 'session', sso_iss: ssoIss })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(person.id)
        .setIssuer(t.config.issuer)
        .setAudience(`${t.config.issuer}/api`)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key);
      await api().get('/api/me').auth(jwt, { type: 'bearer' }).expect(401);
    }
  });

  it('a password session: the organisation requiring single sign-on answers 403 sso_required on REST, is left out of /api/me and the organisation list; the other organisations work; a non-member still gets 404', async () => {
    const jwt = await passwordSession();
    expect((await api().get(`/api/organizations/${orgA.id}`).auth(jwt, { type: 'bearer' }).expect(403)).body).toEqual(SSO_REQUIRED);
    expect((await api().get(`/api/organizations/${orgA.id}/projects`).auth(jwt, { type: 'bearer' }).expect(403)).body).toEqual(SSO_REQUIRED);
    await api().get(`/api/organizations/${orgB.id}/projects`).auth(jwt, { type: 'bearer' }).expect(200);
    await api().get(`/api/organizations/${orgC.id}/projects`).auth(jwt, { type: 'bearer' }).expect(200);
    expect((await api().get(`/api/organizations/${outside.id}`).auth(jwt, { type: 'bearer' }).expect(404)).body).toMatchObject({ statusCode: 404 });
    expect(orgIds((await api().get('/api/organizations').auth(jwt, { type: 'bearer' }).expect(200)).body)).toEqual([orgB.id, orgC.id].sort());
    expect(memberOrgIds((await api().get('/api/me').auth(jwt, { type: 'bearer' }).expect(200)).body)).toEqual([orgB.id, orgC.id].sort());
  });

  it('a password session: the dashboard page of the organisation requiring single sign-on says so and links to single sign-on; the switcher names it', async () => {
    const jwt = await passwordSession();
    const page = await api().get(`/orgs/${orgA.id}/projects`).set('Cookie', `ag_session=${jwt}`).redirects(0).expect(403);
    expect(page.text).toContain('Single sign-on required');
    const next = encodeURIComponent(`/orgs/${orgA.id}/projects`);
    expect(page.text).toContain(`href="/auth/sso/start?email=${encodeURIComponent(person.email)}&amp;next=${next}"`);
    const other = await api().get(`/orgs/${orgC.id}/projects`).set('Cookie', `ag_session=${jwt}`).redirects(0).expect(200);
    expect(other.text).toContain('Project of C');
    expect(other.text).toContain(`<a href="/orgs/${orgA.id}/projects">Org A (SSO required) (needs single sign-on)</a>`);
    await api().get(`/orgs/${outside.id}/projects`).set('Cookie', `ag_session=${jwt}`).redirects(0).expect(404);
  });

  it('a password session: the consent page offers no project of the organisation requiring single sign-on, names it with the single sign-on link, and refuses a posted pick of it', async () => {
    const browser = new TestBrowser(t.baseUrl);
    browser.cookies.set('ag_session', await passwordSession());
    const consent = await openConsent(browser, consentPath());
    expect(formChoices(consent.html, 'project_id').map((c) => c.value).sort()).toEqual([projects.B.id, projects.C.id].sort());
    expect(consent.html).toContain('id="consent-closed-organizations"');
    expect(consent.html).toContain('<strong>Org A (SSO required)</strong> requires single sign-on');
    expect(consent.html).toContain(`href="/auth/sso/start?email=${encodeURIComponent(person.email)}&amp;next=`);
    const res = await browser.post('/api/agent/oauth/authorize', {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      project_id: projects.A.id,
      permissions: ['project:read'],
      decision: 'approve',
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('requires single sign-on: sign in with single sign-on to give access to its projects');
    expect(await t.dataSource.query('SELECT id FROM oauth_grants WHERE user_id = $1', [person.id])).toEqual([]);
  });

  it("a single sign-on session (issued with its issuer by the session-issuing service) opens the organisation of that issuer and the person's others that do not require single sign-on (SPEC §10); one requiring another issuer answers sso_required", async () => {
    const jwt = await ssoSession(ISSUER_X);
    await api().get(`/api/organizations/${orgA.id}/projects`).auth(jwt, { type: 'bearer' }).expect(200);
    await api().get(`/api/organizations/${orgB.id}/projects`).auth(jwt, { type: 'bearer' }).expect(200);
    await api().get(`/api/organizations/${orgC.id}`).auth(jwt, { type: 'bearer' }).expect(200);
    await api().get(`/api/organizations/${outside.id}`).auth(jwt, { type: 'bearer' }).expect(404);
    expect(orgIds((await api().get('/api/organizations').auth(jwt, { type: 'bearer' }).expect(200)).body)).toEqual([orgA.id, orgB.id, orgC.id].sort());
    expect(memberOrgIds((await api().get('/api/me').auth(jwt, { type: 'bearer' }).expect(200)).body)).toEqual([orgA.id, orgB.id, orgC.id].sort());
    // Through Y instead: B and C open; A (requires X) answers sso_required.
    const throughY = await ssoSession(ISSUER_Y);
    await api().get(`/api/organizations/${orgB.id}`).auth(throughY, { type: 'bearer' }).expect(200);
    await api().get(`/api/organizations/${orgC.id}`).auth(throughY, { type: 'bearer' }).expect(200);
    expect((await api().get(`/api/organizations/${orgA.id}`).auth(throughY, { type: 'bearer' }).expect(403)).body).toEqual(SSO_REQUIRED);
    expect(memberOrgIds((await api().get('/api/me').auth(throughY, { type: 'bearer' }).expect(200)).body)).toEqual([orgB.id, orgC.id].sort());

    // The pages: A and C open.
    await api().get(`/orgs/${orgA.id}/projects`).set('Cookie', `ag_session=${jwt}`).redirects(0).expect(200);
    const other = await api().get(`/orgs/${orgC.id}/projects`).set('Cookie', `ag_session=${jwt}`).redirects(0).expect(200);
    expect(other.text).toContain('Project of C');

    // The consent page offers the projects of A, B and C.
    const browser = new TestBrowser(t.baseUrl);
    browser.cookies.set('ag_session', jwt);
    const consent = await openConsent(browser, consentPath());
    expect(formChoices(consent.html, 'project_id').map((c) => c.value).sort()).toEqual([projects.A.id, projects.B.id, projects.C.id].sort());
    expect(consent.html).not.toContain('id="consent-closed-organizations"');
  });

  it("the person's connected clients (/api/me/agent-grants): a password session neither lists nor disconnects one in the organisation requiring single sign-on; the single sign-on session does", async () => {
    const inA = await insertConnectedClient(t.dataSource, { userId: person.id, organizationId: orgA.id, projectId: projects.A.id, clientName: 'Client in A' });
    const inC = await insertConnectedClient(t.dataSource, { userId: person.id, organizationId: orgC.id, projectId: projects.C.id, clientName: 'Client in C' });
    const password = await passwordSession();
    const listed = (jwt: string) => api().get('/api/me/agent-grants').auth(jwt, { type: 'bearer' }).expect(200).then((r) => (r.body as { id: string }[]).map((g) => g.id));
    expect(await listed(password)).toEqual([inC.grantId]);
    expect((await api().post(`/api/me/agent-grants/${inA.grantId}/revoke`).auth(password, { type: 'bearer' }).expect(403)).body).toEqual(SSO_REQUIRED);
    expect(await t.dataSource.query('SELECT revoked_at FROM oauth_grants WHERE id = $1', [inA.grantId])).toEqual([{ revoked_at: null }]);
    const sso = await ssoSession(ISSUER_X);
    expect((await listed(sso)).sort()).toEqual([inA.grantId, inC.grantId].sort());
    await api().post(`/api/me/agent-grants/${inA.grantId}/revoke`).auth(sso, { type: 'bearer' }).expect(200);
  });

  it("a real single sign-on (the test identity provider, /auth/sso/start → callback) opens its organisation and the person's others that do not require single sign-on; a password session of its admin is refused there", async () => {
    const admin = await signupOverHttp(t, { organizationName: 'Org R (real IdP, SSO required)' });
    const domain = testDomain('reach');
    await connectWithVerifiedDomains(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer, emailDomains: [domain], requireSso: true, confirmLockout: true });
    expect((await api().get(`/api/organizations/${admin.organization.id}`).auth(admin.accessToken, { type: 'bearer' }).expect(403)).body).toEqual(SSO_REQUIRED);
    await api().get('/api/organizations').auth(admin.accessToken, { type: 'bearer' }).expect(200, { items: [] });

    const email = `rae-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('rae-sub', { email, email_verified: true, name: 'Rae Reach' });
    const started = await startSingleSignOn(t.baseUrl, email);
    expect(started.status).toBe(303);
    const stateCookie = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!.split(';')[0]!;
    const callback = await idp.signInWithoutBrowser(started.headers.get('location')!, 'rae-sub');
    const signedIn = await fetch(callback, { redirect: 'manual', headers: { cookie: stateCookie } });
    expect(signedIn.status).toBe(303);
    const session = decodeURIComponent(signedIn.headers.getSetCookie().find((c) => c.startsWith('ag_session='))!.split(';')[0]!.slice('ag_session='.length));
    expect(decodeJwt(session).sso_iss).toBe(idp.issuer);

    const me = (await api().get('/api/me').auth(session, { type: 'bearer' }).expect(200)).body as { user: { id: string }; memberships: { organization: { id: string } }[] };
    expect(me.memberships.map((m) => m.organization.id)).toEqual([admin.organization.id]);
    await api().get(`/api/organizations/${admin.organization.id}/projects`).auth(session, { type: 'bearer' }).expect(200);
    // Made a member of an organisation without an identity provider: this session opens it too (SPEC §10);
    // one that requires another issuer's single sign-on stays closed.
    await addMember(t.dataSource, orgC.id, me.user.id, 'member');
    await addMember(t.dataSource, orgA.id, me.user.id, 'member');
    await api().get(`/api/organizations/${orgC.id}`).auth(session, { type: 'bearer' }).expect(200);
    expect((await api().get(`/api/organizations/${orgA.id}`).auth(session, { type: 'bearer' }).expect(403)).body).toEqual(SSO_REQUIRED);
    expect(memberOrgIds((await api().get('/api/me').auth(session, { type: 'bearer' }).expect(200)).body)).toEqual([admin.organization.id, orgC.id].sort());
  });

  it('a password session may accept an invitation into an organisation requiring single sign-on: the person joins, and the organisation stays closed to that session', async () => {
    const admin = await createUser(t.dataSource);
    await addMember(t.dataSource, orgA.id, admin.id, 'admin');
    const adminSso = await ssoSession(ISSUER_X, admin.id);
    const newcomer = await createUser(t.dataSource);
    const invitation = await api().post(`/api/organizations/${orgA.id}/members`).auth(adminSso, { type: 'bearer' }).send({ email: newcomer.email, role: 'member' }).expect(201);
    const password = (await api().post('/api/auth/login').send({ email: newcomer.email, password: newcomer.password }).expect(200)).body.accessToken as string;
    const accepted = await api().post('/api/invitations/accept').auth(password, { type: 'bearer' }).send({ token: invitation.body.token }).expect(200);
    expect(await t.dataSource.query('SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2', [orgA.id, newcomer.id])).toEqual([{ role: 'member' }]);
    // Accepting ended that session and issued a new password session (SPEC §10), which stays closed there.
    await api().get('/api/me').auth(password, { type: 'bearer' }).expect(401);
    const renewed = accepted.body.accessToken as string;
    expect(decodeJwt(renewed).sso_iss).toBeUndefined();
    expect((await api().get(`/api/organizations/${orgA.id}/projects`).auth(renewed, { type: 'bearer' }).expect(403)).body).toEqual(SSO_REQUIRED);
    expect(memberOrgIds((await api().get('/api/me').auth(renewed, { type: 'bearer' }).expect(200)).body)).toEqual([]);
    // The dashboard's home lists it with the single sign-on link instead of opening it.
    const home = await api().get('/').set('Cookie', `ag_session=${renewed}`).redirects(0).expect(200);
    expect(home.text).toContain('Sign in to open your organisations');
    expect(home.text).toContain(`href="/auth/sso/start?email=${encodeURIComponent(newcomer.email)}&amp;next=${encodeURIComponent(`/orgs/${orgA.id}/projects`)}"`);
  });

  it('a session issued before the current membership began: the consent page offers none of its projects, and a posted pick of one is refused, as is its person\'s connected client there', async () => {
    const someone = await createUser(t.dataSource, { email: `rejoined-${randomUUID().slice(0, 8)}@example.test` });
    const org = await createOrganization(t.dataSource, 'Org rejoined');
    await addMember(t.dataSource, org.id, someone.id, 'admin');
    const project = await createProject(t.dataSource, org.id, 'Project of the rejoined');
    const grant = await insertConnectedClient(t.dataSource, { userId: someone.id, organizationId: org.id, projectId: project.id, clientName: 'Rejoined Client' });
    const old = (await api().post('/api/auth/login').send({ email: someone.email, password: someone.password }).expect(200)).body.accessToken as string;
    // The membership ends and another begins after that session was issued (removed, invited back).
    const memberships = t.app.get(MembershipDirectory);
    await memberships.remove(org.id, someone.id);
    await memberships.add(org.id, someone.id, 'admin');
    const browser = new TestBrowser(t.baseUrl);
    browser.cookies.set('ag_session', old);
    const consent = await openConsent(browser, consentPath());
    expect(formChoices(consent.html, 'project_id').map((c) => c.value)).not.toContain(project.id);
    const res = await browser.post('/api/agent/oauth/authorize', {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      project_id: project.id,
      permissions: ['project:read'],
      decision: 'approve',
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('This session was issued before your current membership of that project');
    expect(await t.dataSource.query('SELECT id FROM oauth_grants WHERE user_id = $1 AND id <> $2', [someone.id, grant.grantId])).toEqual([]);
    const listed = await api().get('/api/me/agent-grants').auth(old, { type: 'bearer' }).expect(200);
    expect((listed.body as { id: string }[]).map((g) => g.id)).not.toContain(grant.grantId);
    const revoke = await api().post(`/api/me/agent-grants/${grant.grantId}/revoke`).auth(old, { type: 'bearer' }).expect(401);
    expect(revoke.body.code).toBe('session_predates_membership');
    expect(await t.dataSource.query('SELECT revoked_at FROM oauth_grants WHERE id = $1', [grant.grantId])).toEqual([{ revoked_at: null }]);
  });

  it('sign-out ends a single sign-on session and clears the single sign-on cookie (REST and the pages)', async () => {
    const jwt = await ssoSession(ISSUER_X);
    const out = await api().post('/api/auth/logout').auth(jwt, { type: 'bearer' }).expect(204);
    const cookies = ([] as string[]).concat(out.headers['set-cookie'] ?? []);
    expect(cookies.some((c) => /^ag_session=;/.test(c))).toBe(true);
    expect(cookies.some((c) => /^ag_sso_state=;/.test(c) && /Path=\/auth\/sso\/callback(;|$)/.test(c))).toBe(true);
    expect(cookies.some((c) => /^ag_sso_link=;/.test(c) && /Path=\/auth\/sso\/link(;|$)/.test(c))).toBe(true);
    await api().get('/api/me').auth(jwt, { type: 'bearer' }).expect(401);

    const pageJwt = await ssoSession(ISSUER_X);
    const page = await api().post('/logout').set('Cookie', `ag_session=${pageJwt}`).set('Sec-Fetch-Site', 'same-origin').redirects(0).expect(303);
    expect(([] as string[]).concat(page.headers['set-cookie'] ?? []).some((c) => /^ag_sso_state=;/.test(c))).toBe(true);
    await api().get('/api/me').auth(pageJwt, { type: 'bearer' }).expect(401);
  });
});
