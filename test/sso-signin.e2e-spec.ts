import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { connectIdentityProvider, connectWithVerifiedDomains, redirectUriFor, startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp, type JwtPatch, type SigningChoice } from './helpers/test-idp';
import { addMember, createUser } from './factories';
import { signupOverHttp, SignedUp } from './factories/rest';

/**
 * Signing in through an organisation's identity provider (a real OpenID provider, in process):
 * `/auth/sso/start` → the IdP → `/auth/sso/callback`, driven without a browser, with the browser's
 * cookies carried by hand. What a person would check: where each step sends them, the page they
 * see, the account and membership they get, the session's issuer, the audit trail.
 */
describe('Single sign-on: signing in through the organisation identity provider', () => {
  let t: TestApp;
  let idp: TestIdp;
  let otherIdp: TestIdp;
  let admin: SignedUp;
  let domain: string;
  let redirectUri: string;

  beforeAll(async () => {
    [idp, otherIdp] = await Promise.all([startTestIdp(), startTestIdp()]);
    // Every sign-in of this file comes from one address: the per-address limits (test/sso-limits) are out of the way.
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', SSO_STARTS_PER_IP_PER_MINUTE: '1000', SSO_CALLBACKS_PER_IP_PER_MINUTE: '1000' });
    admin = await signupOverHttp(t);
    redirectUri = await redirectUriFor(t, admin.organization.id, admin.accessToken);
    for (const provider of [idp, otherIdp]) {
      await provider.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [redirectUri] });
    }
    domain = testDomain();
    await connectWithVerifiedDomains(t, admin.organization.id, admin.accessToken, {
      issuer: idp.issuer,
      emailDomains: [domain],
      groupsClaim: 'groups',
      roleMappings: [{ group: 'gw-admins', role: 'admin' }],
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([idp?.stop(), otherIdp?.stop()]);
  });

  function cookiesOf(res: Response): Map<string, string> {
    const jar = new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), decodeURIComponent(pair.slice(eq + 1)));
    }
    return jar;
  }

  const get = (path: string, cookie?: string) => fetch(new URL(path, t.baseUrl), { redirect: 'manual', headers: cookie ? { cookie } : {} });

  /** `/auth/sso/start` for the email: the IdP's authorization URL and the browser's state cookie. */
  async function start(email: string, next?: string) {
    const res = await startSingleSignOn(t.baseUrl, email, { next });
    expect(res.status).toBe(303);
    const state = cookiesOf(res).get('ag_sso_state');
    return { location: res.headers.get('location')!, cookie: state ? `ag_sso_state=${state}` : undefined, res };
  }

  /** The whole sign-in: start, the IdP as `sub`, and the callback with the browser's cookie. */
  async function signIn(email: string, sub: string, options: { next?: string } = {}) {
    const started = await start(email, options.next);
    expect(started.location.startsWith(`${idp.issuer}/`) || started.location.startsWith(`${otherIdp.issuer}/`)).toBe(true);
    const callback = await (started.location.startsWith(`${idp.issuer}/`) ? idp : otherIdp).signInWithoutBrowser(started.location, sub);
    const res = await get(callback, started.cookie);
    const session = cookiesOf(res).get('ag_session');
    return { res, session, text: res.status === 303 ? '' : await res.text(), callback, started };
  }

  async function me(session: string) {
    const res = await fetch(`${t.baseUrl}/api/me`, { headers: { Authorization: `Bearer ${session}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as { user: { id: string; email: string; name: string }; memberships: { organization: { id: string }; role: string }[] };
  }

  async function roleIn(orgId: string, userId: string): Promise<string | null> {
    const rows = (await t.dataSource.query('SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2', [orgId, userId])) as { role: string }[];
    return rows[0]?.role ?? null;
  }

  async function actionsFor(userId: string): Promise<string[]> {
    const rows = (await t.dataSource.query(`SELECT action FROM audit_events WHERE target_id = $1 ORDER BY created_at, id`, [userId])) as { action: string }[];
    return rows.map((r) => r.action);
  }

  it('creates the account just in time with the role its groups map to, opens a session recorded with the issuer, and keeps next', async () => {
    const email = `ann-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('ann-sub', { email, email_verified: true, name: 'Ann Admin', groups: ['gw-admins'] });
    const started = await start(email, '/orgs?tab=1');
    const authorize = new URL(started.location);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: TEST_IDP_CLIENT_ID,
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      login_hint: email,
    });
    expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const setCookie = started.res.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\/auth\/sso\/callback/);
    // The verifier is not readable in the cookie: it is encrypted (JWE, five parts).
    expect(decodeURIComponent(started.cookie!.split('=')[1]).split('.')).toHaveLength(5);

    const callback = await idp.signInWithoutBrowser(started.location, 'ann-sub');
    const res = await get(callback, started.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/orgs?tab=1');
    // The state cookie is spent.
    expect(res.headers.getSetCookie().some((c) => c.startsWith('ag_sso_state=;'))).toBe(true);
    const session = cookiesOf(res).get('ag_session')!;
    const profile = await me(session);
    expect(profile.user).toMatchObject({ email, name: 'Ann Admin' });
    expect(profile.memberships).toEqual([{ organization: { id: admin.organization.id, name: admin.organization.name }, role: 'admin' }]);
    const [user] = (await t.dataSource.query('SELECT password_hash FROM users WHERE id = $1', [profile.user.id])) as { password_hash: string }[];
    expect(user.password_hash).toBe('!');
    const [record] = (await t.dataSource.query('SELECT sso_issuer FROM sessions WHERE id = $1', [decodeJwt(session).jti])) as { sso_issuer: string }[];
    expect(record.sso_issuer).toBe(idp.issuer);
    const [provider] = (await t.dataSource.query('SELECT admin_signed_in_at FROM identity_providers WHERE organization_id = $1', [admin.organization.id])) as {
      admin_signed_in_at: Date | null;
    }[];
    expect(provider.admin_signed_in_at).not.toBeNull();
    expect(await actionsFor(profile.user.id)).toEqual(['sso.account_created', 'member.added', 'sso.linked', 'sso.sign_in']);
    const events = (await t.dataSource.query(`SELECT metadata FROM audit_events WHERE target_id = $1`, [profile.user.id])) as { metadata: unknown }[];
    expect(JSON.stringify(events)).not.toMatch(/eyJ/); // no token of any kind

    // The next sign-in: the groups claim no longer maps to admin → the role follows (a demotion).
    idp.setAccount('ann-sub', { email, email_verified: true, name: 'Ann Admin', groups: ['engineering'] });
    const again = await signIn(email, 'ann-sub');
    expect(again.res.status).toBe(303);
    expect(await roleIn(admin.organization.id, profile.user.id)).toBe('member');
    const [change] = (await t.dataSource.query(`SELECT actor_type, metadata FROM audit_events WHERE target_id = $1 AND action = 'member.role_changed'`, [
      profile.user.id,
    ])) as { actor_type: string; metadata: Record<string, unknown> }[];
    expect(change.metadata).toMatchObject({ from: 'admin', to: 'member', source: 'groups' });
    // Back in the admin group: promoted again.
    idp.setAccount('ann-sub', { email, email_verified: true, name: 'Ann Admin', groups: ['gw-admins'] });
    expect((await signIn(email, 'ann-sub')).res.status).toBe(303);
    expect(await roleIn(admin.organization.id, profile.user.id)).toBe('admin');
  });

  it("records the tenant an admin's ID token names, which ID-JAGs of a shared issuer are matched against", async () => {
    const email = `tia-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('tia-sub', { email, email_verified: true, name: 'Tia Admin', groups: ['gw-admins'], tenant: 'tenant-acme' });
    expect((await signIn(email, 'tia-sub')).res.status).toBe(303);
    const [provider] = (await t.dataSource.query('SELECT tenant FROM identity_providers WHERE organization_id = $1', [admin.organization.id])) as { tenant: string | null }[];
    expect(provider.tenant).toBe('tenant-acme');
    // A later sign-in naming another tenant does not move it.
    idp.setAccount('tia-sub', { email, email_verified: true, name: 'Tia Admin', groups: ['gw-admins'], tenant: 'tenant-other' });
    expect((await signIn(email, 'tia-sub')).res.status).toBe(303);
    const [after] = (await t.dataSource.query('SELECT tenant FROM identity_providers WHERE organization_id = $1', [admin.organization.id])) as { tenant: string | null }[];
    expect(after.tenant).toBe('tenant-acme');
  });

  it('never takes the last admin away through the groups claim', async () => {
    const owner = await signupOverHttp(t);
    const ownDomain = testDomain();
    const ownIdp = idp;
    await connectWithVerifiedDomains(t, owner.organization.id, owner.accessToken, { issuer: ownIdp.issuer, emailDomains: [ownDomain], groupsClaim: 'groups', roleMappings: [{ group: 'gw-admins', role: 'admin' }] });
    const email = `solo-${randomUUID().slice(0, 6)}@${ownDomain}`;
    idp.setAccount('solo-sub', { email, email_verified: true, name: 'Solo', groups: ['gw-admins'] });
    const first = await signIn(email, 'solo-sub');
    const userId = (await me(first.session!)).user.id;
    // The signed-up admin leaves: the SSO person is the only admin.
    await t.dataSource.query('DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2', [owner.organization.id, owner.user.id]);
    idp.setAccount('solo-sub', { email, email_verified: true, name: 'Solo', groups: [] });
    const again = await signIn(email, 'solo-sub');
    expect(again.res.status).toBe(303);
    expect(await roleIn(owner.organization.id, userId)).toBe('admin');
  });

  it('signs in after the identity provider rotated its signing key (the key set is fetched again)', async () => {
    const email = `rot-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('rot-sub', { email, email_verified: true, name: 'Rita Rotation' });
    expect((await signIn(email, 'rot-sub')).res.status).toBe(303);
    const oldKid = idp.currentKid();
    await idp.rotateKeys();
    expect(idp.currentKid()).not.toBe(oldKid);
    // An unknown kid refetches the key set at most every few seconds per issuer: step past that.
    const realNow = Date.now.bind(Date);
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 10_000);
    try {
      const after = await signIn(email, 'rot-sub');
      expect(after.res.status).toBe(303);
      expect(after.session).toBeDefined();
    } finally {
      clock.mockRestore();
    }
  });

  const tampered: [string, JwtPatch, SigningChoice, string][] = [
    [
      'a wrong audience',
      (c) => {
        c.aud = 'another-client';
      },
      'current',
      'it was issued to another client (aud)',
    ],
    [
      'several audiences and no azp',
      (c) => {
        c.aud = [TEST_IDP_CLIENT_ID, 'another-client'];
      },
      'current',
      'it was issued to another client (azp)',
    ],
    [
      'a wrong nonce',
      (c) => {
        c.nonce = 'not-this-sign-in';
      },
      'current',
      'its nonce is not this sign-in',
    ],
    [
      'an expired token',
      (c) => {
        const now = Math.floor(Date.now() / 1000);
        c.iat = now - 900;
        c.exp = now - 120;
      },
      'current',
      'it has expired',
    ],
    [
      'another issuer',
      (c) => {
        c.iss = 'https://elsewhere.example';
      },
      'current',
      'it names another issuer (iss)',
    ],
    ['alg none', () => undefined, 'none', 'is not accepted'],
    ['an HMAC signature', () => undefined, 'hs256', 'is not accepted'],
    ['a key not in the key set', () => undefined, 'foreign', 'its signature does not verify'],
  ];

  it.each(tampered)('refuses an ID token with %s', async (_what, patch, key, words) => {
    const email = `tamper-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('tamper-sub', { email, email_verified: true, name: 'Tim Tamper' });
    idp.tamperNextIdToken(patch, key);
    const { res, session, text } = await signIn(email, 'tamper-sub');
    expect(res.status).toBe(401);
    expect(session).toBeUndefined();
    expect(text).toContain('Single sign-on failed');
    expect(text).toContain("The identity provider&#39;s ID token was refused");
    expect(text).toContain(words.replace(/'/g, '&#39;'));
    expect(await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(0);
  });

  it('refuses a callback without the browser-bound cookie, with a state mismatch, and shows only the error code the IdP sends', async () => {
    const email = `csrf-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('csrf-sub', { email, email_verified: true, name: 'Cass' });
    const started = await start(email);
    const callback = await idp.signInWithoutBrowser(started.location, 'csrf-sub');

    const without = await get(callback);
    expect(without.status).toBe(400);
    expect(cookiesOf(without).has('ag_session')).toBe(false);
    expect(await without.text()).toContain('This sign-in was not started in this browser');

    const wrongState = new URL(callback);
    wrongState.searchParams.set('state', 'x'.repeat(43));
    const mismatch = await get(wrongState.href, started.cookie);
    expect(mismatch.status).toBe(400);
    expect(cookiesOf(mismatch).has('ag_session')).toBe(false);
    expect(await mismatch.text()).toContain('state mismatch');

    const again = await start(email);
    const state = new URL(again.location).searchParams.get('state')!;
    const refused = await get(`${new URL(redirectUri).pathname}?${new URLSearchParams({ state, error: 'access_denied', error_description: '<b>evil</b> text' })}`, again.cookie);
    expect(refused.status).toBe(401);
    const page = await refused.text();
    expect(page).toContain('The identity provider did not sign you in (access_denied).');
    expect(page).not.toContain('evil');
    expect(await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(0);
  });

  it('does not route an unverified domain or a public mail domain to single sign-on', async () => {
    const other = await signupOverHttp(t);
    const pending = testDomain('pending');
    await connectIdentityProvider(t, other.organization.id, other.accessToken, { issuer: otherIdp.issuer, emailDomains: [pending] });
    for (const email of [`pat@${pending}`, 'someone@gmail.com', 'not-an-email']) {
      const res = await startSingleSignOn(t.baseUrl, email, { next: '/orgs' });
      expect(res.status).toBe(303);
      const back = new URL(res.headers.get('location')!, t.baseUrl);
      expect(back.pathname).toBe('/login');
      expect(back.searchParams.get('sso')).toBe('not_set_up');
      expect(back.searchParams.get('next')).toBe('/orgs');
      expect(cookiesOf(res).has('ag_sso_state')).toBe(false);
      const page = await (await get(`${back.pathname}${back.search}`)).text();
      expect(page).toContain('This email address is not set up for single sign-on. Sign in with your password.');
      expect(page).not.toContain('href="/auth/sso/start');
    }
    // A verified domain: the sign-in page offers single sign-on for it, keeping next.
    const offered = await (await get(`/login?${new URLSearchParams({ email: `x@${domain}`, next: '/orgs' })}`)).text();
    expect(offered).toContain(`href="/auth/sso/start?email=x%40${domain}&amp;next=%2Forgs"`);
    expect(offered).toContain('Continue with single sign-on');

    // The sign-in form's "Continue with single sign-on" button: on to /auth/sso/start for a claimed
    // domain, the form again with the sentence for any other email.
    const form = await get('/login?next=%2Forgs');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())![1];
    const cookie = `ag_login_csrf=${cookiesOf(form).get('ag_login_csrf')}`;
    const post = (email: string) =>
      fetch(`${t.baseUrl}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email, password: '', next: '/orgs', csrf_token: csrf, sso: 'continue' }),
      });
    const routed = await post(`x@${domain}`);
    expect(routed.status).toBe(303);
    expect(routed.headers.get('location')).toBe(`/auth/sso/start?email=x%40${domain}&next=%2Forgs`);
    const notRouted = await post(`pat@${pending}`);
    expect(notRouted.status).toBe(400);
    expect(await notRouted.text()).toContain('This email address is not set up for single sign-on. Sign in with your password.');
    // The button itself posts the form to POST /auth/sso/start with the form's start token (SPEC §10).
    const formHtml = await (await get('/login?next=%2Forgs')).text();
    expect(formHtml).toMatch(/<button type="submit" name="sso" value="continue" formaction="\/auth\/sso\/start"/);
    expect(formHtml).toMatch(/name="sso_csrf_token" value="[^"]+"/);
  });

  it('gives an IdP asserting the email of a password account of another organisation nothing', async () => {
    // Org B's IdP (another issuer) signs someone in as an email of org A's verified domain.
    const orgB = await signupOverHttp(t);
    const domainB = testDomain('b');
    await connectWithVerifiedDomains(t, orgB.organization.id, orgB.accessToken, { issuer: otherIdp.issuer, emailDomains: [domainB] });
    const victim = await createUser(t.dataSource, { email: `victim-${randomUUID().slice(0, 6)}@${domain}` });
    await addMember(t.dataSource, admin.organization.id, victim.id, 'member');
    otherIdp.setAccount('mallory', { email: victim.email, email_verified: true, name: 'Mallory' });
    const { res, session, text } = await signIn(`mallory@${domainB}`, 'mallory');
    expect(res.status).toBe(403);
    expect(session).toBeUndefined();
    expect(text).toContain('is not a verified domain of this organisation');
    expect(await roleIn(orgB.organization.id, victim.id)).toBeNull();
    expect(await t.dataSource.query('SELECT 1 FROM identity_links WHERE user_id = $1', [victim.id])).toHaveLength(0);

    // An email the IdP does not vouch for is refused as well.
    otherIdp.setAccount('unverified', { email: `u@${domainB}`, email_verified: false, name: 'U' });
    const unverified = await signIn(`u@${domainB}`, 'unverified');
    expect(unverified.res.status).toBe(403);
    expect(unverified.text).toContain('email_verified is not true');
  });

  it('does not let a person linked through an issuer another organisation also uses into that organisation', async () => {
    // Org C connects the same issuer (a cloud IdP serves many organisations) with its own domain.
    const orgC = await signupOverHttp(t);
    const domainC = testDomain('c');
    await connectWithVerifiedDomains(t, orgC.organization.id, orgC.accessToken, { issuer: idp.issuer, emailDomains: [domainC] });
    const email = `lin-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('lin-sub', { email, email_verified: true, name: 'Lin Linked' });
    const first = await signIn(email, 'lin-sub');
    const userId = (await me(first.session!)).user.id;
    // Started for org C's domain, signed in at the IdP as the person of org A.
    const crossed = await signIn(`someone@${domainC}`, 'lin-sub');
    expect(crossed.res.status).toBe(403);
    expect(crossed.session).toBeUndefined();
    expect(crossed.text).toContain('is not a verified domain of this organisation');
    expect(await roleIn(orgC.organization.id, userId)).toBeNull();
  });

  it('links an existing password account only after its password and a confirmation', async () => {
    // An account made with a password, a member of another organisation only.
    const elsewhere = await signupOverHttp(t);
    const dave = await createUser(t.dataSource, { email: `dave-${randomUUID().slice(0, 6)}@${domain}`, name: 'Dave' });
    await addMember(t.dataSource, elsewhere.organization.id, dave.id, 'member');
    idp.setAccount('dave-sub', { email: dave.email, email_verified: true, name: 'Dave at the IdP' });
    const first = await signIn(dave.email, 'dave-sub', { next: '/orgs' });
    expect(first.res.status).toBe(303);
    expect(first.res.headers.get('location')).toBe('/auth/sso/link');
    expect(first.session).toBeUndefined();
    const linkCookie = `ag_sso_link=${cookiesOf(first.res).get('ag_sso_link')}`;
    // Nothing is linked or granted yet.
    expect(await t.dataSource.query('SELECT 1 FROM identity_links WHERE user_id = $1', [dave.id])).toHaveLength(0);
    expect(await roleIn(admin.organization.id, dave.id)).toBeNull();

    const form = await get('/auth/sso/link', linkCookie);
    expect(form.status).toBe(200);
    const html = await form.text();
    expect(html).toContain(`An account for <strong>${dave.email}</strong> already exists here, with a password.`);
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1];
    const cookie = `${linkCookie}; ag_sso_link_csrf=${cookiesOf(form).get('ag_sso_link_csrf')}`;
    const post = (fields: Record<string, string>) =>
      fetch(`${t.baseUrl}/auth/sso/link`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf_token: csrf, ...fields }),
      });

    const wrong = await post({ password: 'not-the-password', confirm: 'yes' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('Wrong password.');
    const unconfirmed = await post({ password: dave.password });
    expect(unconfirmed.status).toBe(400);
    expect(await unconfirmed.text()).toContain('Tick the box to confirm');
    const withoutCsrf = await fetch(`${t.baseUrl}/auth/sso/link`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: linkCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password: dave.password, confirm: 'yes' }),
    });
    expect(withoutCsrf.status).toBe(403);
    expect(await t.dataSource.query('SELECT 1 FROM identity_links WHERE user_id = $1', [dave.id])).toHaveLength(0);

    const linked = await post({ password: dave.password, confirm: 'yes' });
    expect(linked.status).toBe(303);
    expect(linked.headers.get('location')).toBe('/orgs');
    const session = cookiesOf(linked).get('ag_session')!;
    expect((await me(session)).user.id).toBe(dave.id);
    expect(await roleIn(admin.organization.id, dave.id)).toBe('member');
    expect(await roleIn(elsewhere.organization.id, dave.id)).toBe('member');
    expect(await actionsFor(dave.id)).toEqual(expect.arrayContaining(['sso.linked', 'member.added', 'sso.sign_in']));

    // From now on the IdP account signs straight in to that account.
    const later = await signIn(dave.email, 'dave-sub');
    expect(later.res.status).toBe(303);
    expect((await me(later.session!)).user.id).toBe(dave.id);
  });

  it('fills the pending link of an account provisioning made, and does not add back a deprovisioned person', async () => {
    const provisioned = await createUser(t.dataSource, { email: `prov-${randomUUID().slice(0, 6)}@${domain}`, name: 'Pro Visioned' });
    await t.dataSource.query(`UPDATE users SET password_hash = '!' WHERE id = $1`, [provisioned.id]);
    await t.dataSource.query('INSERT INTO identity_links (user_id, issuer, subject) VALUES ($1, $2, NULL)', [provisioned.id, idp.issuer]);
    idp.setAccount('prov-sub', { email: provisioned.email, email_verified: true, name: 'Pro' });
    const first = await signIn(provisioned.email, 'prov-sub');
    expect(first.res.status).toBe(303);
    expect((await me(first.session!)).user.id).toBe(provisioned.id);
    expect(await t.dataSource.query('SELECT subject FROM identity_links WHERE user_id = $1', [provisioned.id])).toEqual([{ subject: 'prov-sub' }]);

    const email = `gone-${randomUUID().slice(0, 6)}@${domain}`;
    await t.dataSource.query('INSERT INTO provisioned_users (organization_id, user_name, active) VALUES ($1, $2, false)', [admin.organization.id, email]);
    idp.setAccount('gone-sub', { email, email_verified: true, name: 'Gone' });
    const refused = await signIn(email, 'gone-sub');
    expect(refused.res.status).toBe(403);
    expect(refused.text).toContain('identity provisioning removed your access');
    expect(await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(0);
  });
  it("accepts Microsoft Entra ID's xms_edov in place of email_verified, only in a token that carries Entra's tenant claim", async () => {
    const email = `entra-${randomUUID().slice(0, 6)}@${domain}`;
    const tid = randomUUID();
    idp.setAccount('entra-sub', { email, name: 'Eve Entra' });
    // Entra's claims: no email_verified, its tenant (tid), the token version, and xms_edov.
    const entra = (xmsEdov: unknown, tenant?: string): JwtPatch => (claims) => {
      delete claims.email_verified;
      claims.ver = '2.0';
      claims.xms_edov = xmsEdov;
      if (tenant) claims.tid = tenant;
    };
    idp.tamperNextIdToken(entra(false, tid));
    const notVouched = await signIn(email, 'entra-sub');
    expect([notVouched.res.status, notVouched.session]).toEqual([403, undefined]);
    expect(notVouched.text).toContain('email_verified is not true');
    idp.tamperNextIdToken(entra(true));
    const notEntra = await signIn(email, 'entra-sub');
    expect([notEntra.res.status, notEntra.session]).toEqual([403, undefined]);
    expect(await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(0);

    idp.tamperNextIdToken(entra(true, tid));
    const vouched = await signIn(email, 'entra-sub');
    expect(vouched.res.status).toBe(303);
    expect((await me(vouched.session!)).user.email).toBe(email);
  });
});
