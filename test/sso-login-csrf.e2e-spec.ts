import { randomUUID } from 'node:crypto';
import { connectWithVerifiedDomains, redirectUriFor, startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { signupOverHttp } from './factories/rest';

/**
 * Login CSRF (SPEC §10, "Starting single sign-on"): another site cannot start a single sign-on in a
 * visitor's browser (a navigation gets a page with a form, a cross-site POST is refused), and an
 * answer of the IdP counts once.
 */
describe('Single sign-on: login CSRF', () => {
  let t: TestApp;
  let idp: TestIdp;
  let domain: string;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' });
    const admin = await signupOverHttp(t);
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [await redirectUriFor(t, admin.organization.id, admin.accessToken)] });
    domain = testDomain('csrf');
    await connectWithVerifiedDomains(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer, emailDomains: [domain] });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  it('a navigation to the start gets a page with a form, never a redirect to the IdP', async () => {
    const res = await fetch(`${t.baseUrl}/auth/sso/start?${new URLSearchParams({ email: `x@${domain}`, next: '/orgs' })}`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.getSetCookie().some((c) => c.startsWith('ag_sso_state='))).toBe(false);
    const page = await res.text();
    expect(page).toContain('<form method="post" action="/auth/sso/start"');
    expect(page).toContain(`value="x@${domain}"`);
  });

  it('refuses a cross-site POST and a POST without the form token (403), starting nothing', async () => {
    const body = new URLSearchParams({ email: `x@${domain}`, next: '/' }).toString();
    const crossSite = await fetch(`${t.baseUrl}/auth/sso/start`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body,
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.getSetCookie().some((c) => c.startsWith('ag_sso_state='))).toBe(false);
    expect(await crossSite.text()).toContain('not started from this site');
    // Even with a token of this site's page, a cross-site POST is refused.
    const page = await fetch(`${t.baseUrl}/auth/sso/start?email=x`, { redirect: 'manual' });
    const token = /name="sso_csrf_token" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = page.headers.getSetCookie().find((c) => c.startsWith('ag_sso_start_csrf='))!.split(';')[0]!;
    const forged = await fetch(`${t.baseUrl}/auth/sso/start`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site', cookie },
      body: `${body}&sso_csrf_token=${encodeURIComponent(token)}`,
    });
    expect(forged.status).toBe(403);
  });

  it('spends the state at its first valid presentation: the same answer again is refused (400)', async () => {
    const email = `once-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('once-sub', { email, email_verified: true, name: 'Olly Once' });
    const started = await startSingleSignOn(t.baseUrl, email);
    expect(started.status).toBe(303);
    const cookie = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!.split(';')[0]!;
    const answer = await idp.signInWithoutBrowser(started.headers.get('location')!, 'once-sub');
    const first = await fetch(answer, { redirect: 'manual', headers: { cookie } });
    expect(first.status).toBe(303);
    const replay = await fetch(answer, { redirect: 'manual', headers: { cookie } });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('already used');
  });

  it("asks before replacing the browser's session of another account, and keeps it when the person says so", async () => {
    const sign = async (email: string, sub: string, session?: string) => {
      idp.setAccount(sub, { email, email_verified: true, name: sub });
      const started = await startSingleSignOn(t.baseUrl, email);
      const state = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!.split(';')[0]!;
      const answer = await idp.signInWithoutBrowser(started.headers.get('location')!, sub);
      return fetch(answer, { redirect: 'manual', headers: { cookie: [state, ...(session ? [`ag_session=${session}`] : [])].join('; ') } });
    };
    const sessionOf = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith('ag_session=') && !c.startsWith('ag_session=;'))?.split(';')[0]!.slice('ag_session='.length);
    const victim = `victim-${randomUUID().slice(0, 6)}@${domain}`;
    const attacker = `attacker-${randomUUID().slice(0, 6)}@${domain}`;
    const own = sessionOf(await sign(victim, 'victim-sub'))!;

    for (const choice of ['stay', 'switch'] as const) {
      const pushed = await sign(attacker, 'attacker-sub', own);
      expect(pushed.status).toBe(303);
      expect(pushed.headers.get('location')).toBe('/auth/sso/switch');
      expect(sessionOf(pushed)).toBeUndefined();
      const pending = pushed.headers.getSetCookie().find((c) => c.startsWith('ag_sso_switch='))!.split(';')[0]!;
      const cookie = `${pending}; ag_session=${own}`;
      const page = await fetch(`${t.baseUrl}/auth/sso/switch`, { headers: { cookie } });
      const text = await page.text();
      expect(text).toContain(victim);
      expect(text).toContain(attacker);
      const token = /name="csrf_token" value="([^"]+)"/.exec(text)![1]!;
      const csrf = page.headers.getSetCookie().find((c) => c.startsWith('ag_sso_switch_csrf='))!.split(';')[0]!;
      const decided = await fetch(`${t.baseUrl}/auth/sso/switch`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `${cookie}; ${csrf}`, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ csrf_token: token, choice }).toString(),
      });
      expect(decided.status).toBe(303);
      if (choice === 'stay') expect(sessionOf(decided)).toBeUndefined();
      else expect(sessionOf(decided)).toBeDefined();
    }
    // The victim's own session still works throughout.
    expect((await fetch(`${t.baseUrl}/api/me`, { headers: { authorization: `Bearer ${decodeURIComponent(own)}` } })).status).toBe(200);
  });
});
