import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';
import { IdentityProviderDirectory } from '@app/identity';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { createTeam } from './factories/rest';
import { connectWithVerifiedDomains, redirectUriFor, signInThroughIdp, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { connectClient } from './helpers/mcp';
import { savePolicy } from './helpers/policy';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

type Team = Awaited<ReturnType<typeof createTeam>>;

/**
 * The single sign-on step-up (SPEC §10, docs/policy.md "A recent sign-in for changes"): a person
 * signed in through the organisation's identity provider confirms a decision by signing in there
 * again (`/auth/sso/step-up` → the IdP with `max_age=0` → the IdP's redirect URI). Only the same
 * IdP account, with a fresh `auth_time`, refreshes the session's sign-in; no session is opened.
 * Driven without a browser against the real test IdP, the browser's cookies carried by hand.
 */
describe('single sign-on step-up for decisions', () => {
  let t: TestApp;
  let idp: TestIdp;
  let team: Team;
  let domain: string;
  let redirectUri: string;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', SSO_STARTS_PER_IP_PER_MINUTE: '1000', SSO_CALLBACKS_PER_IP_PER_MINUTE: '1000' });
    team = await createTeam(t);
    redirectUri = await redirectUriFor(t, team.organization.id, team.admin.jwt);
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [redirectUri] });
    domain = testDomain();
    // Everyone the IdP signs in here is in its admins' group, so an approver of an `admins` rule.
    await connectWithVerifiedDomains(t, team.organization.id, team.admin.jwt, {
      issuer: idp.issuer,
      emailDomains: [domain],
      groupsClaim: 'groups',
      roleMappings: [{ group: 'gw-admins', role: 'admin' }],
    });
    await savePolicy(t, team, [{ id: 'ask', description: 'New tasks need a look', tools: ['create_task'], effect: 'approve', approval: { approvers: 'admins' } }]);
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const cookieOf = (res: Response, name: string) =>
    res.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .find((pair) => pair.startsWith(`${name}=`) && pair.length > name.length + 1);
  const get = (path: string, cookies: (string | undefined)[]) =>
    fetch(new URL(path, t.baseUrl), { redirect: 'manual', headers: { cookie: cookies.filter(Boolean).join('; ') } });

  /** A person signed in through the IdP as `sub` (an account made just in time): their session JWT and id. */
  async function ssoPerson(sub: string) {
    const email = `${sub}-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount(sub, { email, email_verified: true, name: sub, groups: ['gw-admins'] });
    const session = await signInThroughIdp(t.baseUrl, idp, email, sub);
    const [{ id }] = await t.dataSource.query('SELECT id FROM users WHERE email = $1', [email]);
    return { sub, email, id: id as string, jwt: session, cookie: `ag_session=${session}` };
  }
  type Person = Awaited<ReturnType<typeof ssoPerson>>;

  /** An agent's create_task held for approval in a new project; answers the approval's id. */
  async function heldApproval(): Promise<string> {
    const project = await createProject(t.dataSource, team.organization.id, `Project ${randomUUID().slice(0, 6)}`);
    const { accessToken } = await insertConnectedClient(t.dataSource, {
      userId: team.member.id,
      organizationId: team.organization.id,
      projectId: project.id,
      permissions: [...AGENT_PERMISSION_NAMES],
    });
    const connected = await connectClient(t.baseUrl, '2025-06-18', { Authorization: `Bearer ${accessToken}` });
    try {
      const result = await connected.client.callTool({ name: 'create_task', arguments: { title: 'Needs a look' } });
      return /\/approvals\/([0-9a-f-]{36})/.exec((result.content as { text: string }[])[0].text)![1];
    } finally {
      await connected.close();
    }
  }

  const decide = (person: Person, id: string) =>
    request(t.baseUrl).post(`/api/organizations/${team.organization.id}/approvals/${id}/decision`).auth(person.jwt, { type: 'bearer' }).send({ decision: 'approve' });
  const ageSignIn = (person: Person) => t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE user_id = $1`, [person.id]);
  const sessionRows = async (person: Person) =>
    (await t.dataSource.query('SELECT id, authenticated_at > now() - interval \'1 minute\' AS recent FROM sessions WHERE user_id = $1', [person.id])) as { id: string; recent: boolean }[];
  const auditOf = async (person: Person, action: string) =>
    (await t.dataSource.query('SELECT organization_id, target_type, target_id, metadata FROM audit_events WHERE actor_id = $1 AND action = $2', [person.id, action])) as {
      organization_id: string;
      target_type: string;
      target_id: string;
      metadata: Record<string, unknown>;
    }[];

  /** The step-up of `person`'s session, signing in at the IdP as `asSub`: the authorization request and the callback's answer. */
  async function stepUp(person: Person, asSub: string, returnTo: string) {
    const query = new URLSearchParams({ organization: team.organization.id, return_to: returnTo });
    const started = await get(`/auth/sso/step-up?${query.toString()}`, [person.cookie]);
    expect(started.status).toBe(303);
    const authorize = new URL(started.headers.get('location')!);
    const callback = await idp.signInWithoutBrowser(authorize.href, asSub);
    const answer = await get(callback, [cookieOf(started, 'ag_sso_state'), person.cookie]);
    return { authorize, answer, text: answer.status === 303 ? '' : await answer.text() };
  }

  it('a sign-in older than 15 minutes gets 401 naming the step-up; signing in again through the same IdP account refreshes this session, and the decision goes through', async () => {
    const ann = await ssoPerson(`ann-${randomUUID().slice(0, 4)}`);
    const id = await heldApproval();
    await ageSignIn(ann);
    const refused = await decide(ann, id).expect(401);
    expect(refused.body).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      code: 'reauthentication_required',
      message: 'This change needs a sign-in within the last 15 minutes: sign in again through your identity provider (/auth/sso/step-up, in a browser) and retry',
      method: 'sso',
      reauthenticateUrl: `/auth/sso/step-up?organization=${team.organization.id}`,
    });
    const before = await sessionRows(ann);
    expect(before).toEqual([{ id: expect.any(String), recent: false }]);

    const { authorize, answer } = await stepUp(ann, ann.sub, `/approvals/${id}`);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ client_id: TEST_IDP_CLIENT_ID, redirect_uri: redirectUri, max_age: '0', login_hint: ann.email });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/approvals/${id}`);
    // The same session, refreshed; no new session, no new session cookie.
    expect(cookieOf(answer, 'ag_session')).toBeUndefined();
    expect(await sessionRows(ann)).toEqual([{ id: before[0].id, recent: true }]);
    const [marked] = await t.dataSource.query('SELECT step_up_session_id FROM sso_states WHERE step_up_session_id = $1', [before[0].id]);
    expect(marked).toEqual({ step_up_session_id: before[0].id });
    expect(await auditOf(ann, 'session.reauthenticated')).toEqual([
      { organization_id: team.organization.id, target_type: 'session', target_id: before[0].id, metadata: { method: 'sso', issuer: idp.issuer } },
    ]);
    expect(await auditOf(ann, 'sso.sign_in')).toHaveLength(1);

    expect((await decide(ann, id).expect(200)).body).toMatchObject({ status: 'approved', approvedBy: [ann.id] });
  });

  it('refuses a step-up through another account of the same IdP: audited, the session untouched, the decision still 401', async () => {
    const ann = await ssoPerson(`ann-${randomUUID().slice(0, 4)}`);
    const bob = await ssoPerson(`bob-${randomUUID().slice(0, 4)}`);
    const id = await heldApproval();
    await ageSignIn(ann);
    const { answer, text } = await stepUp(ann, bob.sub, `/approvals/${id}`);
    expect(answer.status).toBe(403);
    expect(text).toContain('step_up_account_mismatch');
    expect(text).toContain('with another account than the one linked to the person signed in here');
    expect(await sessionRows(ann)).toEqual([{ id: expect.any(String), recent: false }]);
    expect(await auditOf(ann, 'session.reauthenticated')).toEqual([]);
    expect(await auditOf(ann, 'session.reauthentication_failed')).toEqual([
      { organization_id: team.organization.id, target_type: 'session', target_id: expect.any(String), metadata: { method: 'sso', issuer: idp.issuer, reason: 'account_mismatch', subject: bob.sub } },
    ]);
    expect((await decide(ann, id).expect(401)).body).toMatchObject({ code: 'reauthentication_required', method: 'sso' });
    // An account of the IdP linked to no one here is refused the same way.
    idp.setAccount('stranger', { email: `stranger@${domain}`, email_verified: true });
    expect((await stepUp(ann, 'stranger', '/')).answer.status).toBe(403);
    await decide(ann, id).expect(401);
  });

  it('refuses an ID token without auth_time, or with one from before the step-up started', async () => {
    const ann = await ssoPerson(`ann-${randomUUID().slice(0, 4)}`);
    const id = await heldApproval();
    await ageSignIn(ann);
    idp.tamperNextIdToken((claims) => {
      delete claims.auth_time;
    });
    const missing = await stepUp(ann, ann.sub, `/approvals/${id}`);
    expect(missing.answer.status).toBe(401);
    expect(missing.text).toContain('step_up_not_recent');
    idp.tamperNextIdToken((claims) => {
      claims.auth_time = Math.floor(Date.now() / 1000) - 10 * 60;
    });
    const stale = await stepUp(ann, ann.sub, `/approvals/${id}`);
    expect(stale.answer.status).toBe(401);
    expect(stale.text).toContain('step_up_not_recent');
    expect(await sessionRows(ann)).toEqual([{ id: expect.any(String), recent: false }]);
    expect((await auditOf(ann, 'session.reauthentication_failed')).map((e) => e.metadata.reason)).toEqual(['not_recent', 'not_recent']);
    await decide(ann, id).expect(401);
  });

  it("refuses an answer arriving in a browser whose session is not the one that started the step-up", async () => {
    const ann = await ssoPerson(`ann-${randomUUID().slice(0, 4)}`);
    const bob = await ssoPerson(`bob-${randomUUID().slice(0, 4)}`);
    await ageSignIn(ann);
    const started = await get(`/auth/sso/step-up?return_to=/`, [ann.cookie]);
    const callback = await idp.signInWithoutBrowser(started.headers.get('location')!, ann.sub);
    const answer = await get(callback, [cookieOf(started, 'ag_sso_state'), bob.cookie]);
    expect(answer.status).toBe(401);
    expect(await answer.text()).toContain('step_up_session_changed');
    expect(await sessionRows(ann)).toEqual([{ id: expect.any(String), recent: false }]);
  });

  it('a password session is sent to its password; no session goes to the sign-in page; return_to stays on this site', async () => {
    const passwordSession = await get('/auth/sso/step-up?return_to=/approvals', [`ag_session=${team.admin.jwt}`]);
    expect(passwordSession.status).toBe(400);
    expect(await passwordSession.text()).toContain('step_up_not_sso');
    const none = await get('/auth/sso/step-up?return_to=/approvals', []);
    expect(none.status).toBe(303);
    expect(none.headers.get('location')).toBe('/login?next=%2Fapprovals');
    const ann = await ssoPerson(`ann-${randomUUID().slice(0, 4)}`);
    const offSite = await stepUp(ann, ann.sub, 'https://evil.example/steal');
    expect(offSite.answer.status).toBe(303);
    expect(offSite.answer.headers.get('location')).toBe('/');
    // A password session's 401 names the password route.
    await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE user_id = $1`, [team.admin.id]);
    const refused = await request(t.baseUrl).put(`/api/organizations/${team.organization.id}/policy`).auth(team.admin.jwt, { type: 'bearer' }).send({ version: 1, rules: [] }).expect(401);
    expect(refused.body).toMatchObject({ code: 'reauthentication_required', method: 'password', reauthenticateUrl: '/api/auth/reauthenticate' });
    await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() WHERE user_id = $1`, [team.admin.id]);
  });

  it('in an organisation that requires single sign-on, the step-up is through its IdP', async () => {
    const ann = await ssoPerson(`ann-${randomUUID().slice(0, 4)}`);
    const id = await heldApproval();
    await t.app.get(IdentityProviderDirectory).save({ organizationId: team.organization.id, requireSso: true }, t.dataSource.manager);
    try {
      await ageSignIn(ann);
      expect((await decide(ann, id).expect(401)).body).toMatchObject({ method: 'sso', reauthenticateUrl: `/auth/sso/step-up?organization=${team.organization.id}` });
      expect((await stepUp(ann, ann.sub, `/approvals/${id}`)).answer.status).toBe(303);
      await decide(ann, id).expect(200);
    } finally {
      await t.app.get(IdentityProviderDirectory).save({ organizationId: team.organization.id, requireSso: false }, t.dataSource.manager);
    }
  });
});
