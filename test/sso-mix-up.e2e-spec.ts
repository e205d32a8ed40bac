import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { SsoRedirectUris } from '@app/identity';
import { connectIdentityProvider, connectWithVerifiedDomains, identityProviderPath, redirectUriFor, startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { signupOverHttp, SignedUp } from './factories/rest';

/**
 * The IdP mix-up of RFC 9700 §4.4 (SPEC §10, "Per-IdP redirect URIs"): a tenant with her own
 * identity provider lures a victim to start single sign-on for her domain; her IdP's authorization
 * endpoint sends the victim on to the victim's own IdP with the state of that sign-in, and the
 * victim's IdP answers with the victim's code. The answer must never reach her token endpoint.
 */
describe('Single sign-on: an IdP mix-up is refused (per-IdP redirect URIs)', () => {
  let t: TestApp;
  let honestIdp: TestIdp;
  let evilIdp: TestIdp;
  let recorder: Server;
  /** What the attacker's token endpoint received (form bodies). */
  const stolen: string[] = [];
  let victimAdmin: SignedUp;
  let attacker: SignedUp;
  let victimDomain: string;
  let attackerDomain: string;
  let victimRedirectUri: string;

  beforeAll(async () => {
    [honestIdp, evilIdp] = await Promise.all([startTestIdp(), startTestIdp()]);
    recorder = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        stolen.push(body);
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
      });
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    // The attacker's IdP: its token endpoint is hers, recording every code it is sent.
    evilIdp.patchDiscovery({ token_endpoint: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}/token` });
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' });
    [victimAdmin, attacker] = [await signupOverHttp(t), await signupOverHttp(t)];
    victimDomain = testDomain('victim');
    attackerDomain = testDomain('evil');
    victimRedirectUri = await redirectUriFor(t, victimAdmin.organization.id, victimAdmin.accessToken);
    const attackerRedirectUri = await redirectUriFor(t, attacker.organization.id, attacker.accessToken);
    await honestIdp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [victimRedirectUri] });
    await evilIdp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [attackerRedirectUri] });
    await connectWithVerifiedDomains(t, victimAdmin.organization.id, victimAdmin.accessToken, { issuer: honestIdp.issuer, emailDomains: [victimDomain] });
    await connectWithVerifiedDomains(t, attacker.organization.id, attacker.accessToken, { issuer: evilIdp.issuer, emailDomains: [attackerDomain] });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([honestIdp?.stop(), evilIdp?.stop(), new Promise((resolve) => recorder?.close(resolve))]);
  });

  const get = (url: string, cookie?: string) => fetch(new URL(url, t.baseUrl), { redirect: 'manual', headers: cookie ? { cookie } : {} });

  function stateCookie(res: Response): string {
    const line = res.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!;
    return line.split(';')[0];
  }

  /** The start of single sign-on for an email, as the browser does it: the IdP's authorization URL and the state cookie. */
  async function start(email: string): Promise<{ location: URL; cookie: string }> {
    const res = await startSingleSignOn(t.baseUrl, email);
    expect(res.status).toBe(303);
    return { location: new URL(res.headers.get('location')!), cookie: stateCookie(res) };
  }

  async function sessionCount(userId: string): Promise<number> {
    return ((await t.dataSource.query('SELECT 1 FROM sessions WHERE user_id = $1', [userId])) as unknown[]).length;
  }

  it('shows each organisation its own redirect URI before anything is connected, and keeps it through issuer changes and reconnects', async () => {
    const owner = await signupOverHttp(t);
    const first = await redirectUriFor(t, owner.organization.id, owner.accessToken);
    expect(first).toMatch(new RegExp(`^${t.baseUrl}/auth/sso/callback/[A-Za-z0-9_-]{16,}$`));
    expect(first).not.toBe(victimRedirectUri);
    expect(await redirectUriFor(t, owner.organization.id, owner.accessToken)).toBe(first);
    await honestIdp.addClient({ clientId: 'owner-client', clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [first] });
    const connected = await connectIdentityProvider(t, owner.organization.id, owner.accessToken, { issuer: honestIdp.issuer, clientId: 'owner-client' });
    expect(connected).toMatchObject({ redirectUri: first, legacyRedirectUri: false });
    const moved = await connectIdentityProvider(t, owner.organization.id, owner.accessToken, { issuer: evilIdp.issuer, clientId: 'owner-client' });
    expect(moved.redirectUri).toBe(first);
    await request(t.baseUrl).delete(identityProviderPath(owner.organization.id)).set('Authorization', `Bearer ${owner.accessToken}`).expect(204);
    expect(await redirectUriFor(t, owner.organization.id, owner.accessToken)).toBe(first);
    const again = await connectIdentityProvider(t, owner.organization.id, owner.accessToken, { issuer: honestIdp.issuer, clientId: 'owner-client' });
    expect(again.redirectUri).toBe(first);
    // Another organisation's admin does not even learn it exists.
    await request(t.baseUrl).get(`${identityProviderPath(owner.organization.id)}/redirect-uri`).set('Authorization', `Bearer ${attacker.accessToken}`).expect(404);
  });

  it("never sends the victim's code to the attacker's token endpoint, and signs nobody in", async () => {
    const victimEmail = `vic-${randomUUID().slice(0, 6)}@${victimDomain}`;
    honestIdp.setAccount('victim-sub', { email: victimEmail, email_verified: true, name: 'Victor Victim' });
    // The victim once signed in normally: a just-in-time account.
    const own = await start(victimEmail);
    expect(own.location.searchParams.get('redirect_uri')).toBe(victimRedirectUri);
    const ownCallback = await honestIdp.signInWithoutBrowser(own.location.href, 'victim-sub');
    expect((await get(ownCallback, own.cookie)).status).toBe(303);
    const [victim] = (await t.dataSource.query('SELECT id FROM users WHERE email = $1', [victimEmail])) as { id: string }[];
    const sessionsBefore = await sessionCount(victim.id);

    // The lure: the victim's browser starts single sign-on for the attacker's domain.
    const lured = await start(`anyone@${attackerDomain}`);
    expect(lured.location.origin).toBe(new URL(evilIdp.issuer).origin);
    // The attacker's authorization endpoint sends the victim on to the honest IdP, with the
    // state, nonce and PKCE challenge of the lured sign-in and the redirect URI the honest IdP knows.
    const onward = new URL(`${honestIdp.issuer}/auth`);
    for (const [name, value] of lured.location.searchParams) onward.searchParams.set(name, value);
    onward.searchParams.set('redirect_uri', victimRedirectUri);
    const answer = await honestIdp.signInWithoutBrowser(onward.href, 'victim-sub');
    expect(answer.startsWith(victimRedirectUri)).toBe(true);
    expect(new URL(answer).searchParams.get('code')).toBeTruthy();

    const res = await get(answer, lured.cookie);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('another identity provider&#39;s redirect URI');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('ag_session='))).toBe(false);
    expect(stolen).toEqual([]);
    expect(await sessionCount(victim.id)).toBe(sessionsBefore);

    // Delivered to the shared URI instead, it is refused too: neither IdP is connected from before.
    const shared = new URL(answer);
    shared.pathname = '/auth/sso/callback';
    const viaShared = await get(shared.href, lured.cookie);
    expect(viaShared.status).toBe(400);
    expect(stolen).toEqual([]);
  });

  it('keeps the shared redirect URI for an IdP connected before, with iss required, until an admin confirms the new one (audited)', async () => {
    const owner = await signupOverHttp(t);
    const legacyIdp = await startTestIdp();
    try {
      const domain = testDomain('legacy');
      const ownUri = await redirectUriFor(t, owner.organization.id, owner.accessToken);
      const sharedUri = `${t.baseUrl}/auth/sso/callback`;
      await legacyIdp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [sharedUri, ownUri] });
      await connectWithVerifiedDomains(t, owner.organization.id, owner.accessToken, { issuer: legacyIdp.issuer, emailDomains: [domain] });
      // As the migration marks an IdP connected before per-IdP redirect URIs.
      await t.dataSource.query('UPDATE identity_providers SET legacy_redirect_uri = true WHERE organization_id = $1', [owner.organization.id]);
      const shown = (await request(t.baseUrl).get(identityProviderPath(owner.organization.id)).set('Authorization', `Bearer ${owner.accessToken}`).expect(200)).body;
      expect(shown).toMatchObject({ redirectUri: ownUri, legacyRedirectUri: true });

      const email = `leg-${randomUUID().slice(0, 6)}@${domain}`;
      legacyIdp.setAccount('leg-sub', { email, email_verified: true, name: 'Lee Legacy' });
      const started = await start(email);
      expect(started.location.searchParams.get('redirect_uri')).toBe(sharedUri);
      const answer = new URL(await legacyIdp.signInWithoutBrowser(started.location.href, 'leg-sub'));
      expect(answer.searchParams.get('iss')).toBe(legacyIdp.issuer);
      // The issuer advertises iss in its answers: one without it is refused on the shared URI.
      const withoutIss = new URL(answer);
      withoutIss.searchParams.delete('iss');
      const refused = await get(withoutIss.href, started.cookie);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('(iss)');

      const again = await start(email);
      const ok = await get(await legacyIdp.signInWithoutBrowser(again.location.href, 'leg-sub'), again.cookie);
      expect(ok.status).toBe(303);

      // "I registered the new URI" (the page's button): only the organisation's own URI from now on.
      await t.app.get(SsoRedirectUris).confirmNewUri(owner.organization.id, { actorType: 'user', actorId: owner.user.id });
      const [event] = (await t.dataSource.query(`SELECT metadata FROM audit_events WHERE organization_id = $1 AND action = 'identity_provider.redirect_uri_confirmed'`, [
        owner.organization.id,
      ])) as { metadata: Record<string, unknown> }[];
      expect(event.metadata).toMatchObject({ issuer: legacyIdp.issuer, redirectUri: ownUri });
      const after = await start(email);
      expect(after.location.searchParams.get('redirect_uri')).toBe(ownUri);
      expect((await get(await legacyIdp.signInWithoutBrowser(after.location.href, 'leg-sub'), after.cookie)).status).toBe(303);
    } finally {
      await legacyIdp.stop();
    }
  });

  it("refuses, on an organisation's own redirect URI, an answer whose iss names another issuer or that lacks the iss its IdP advertises (RFC 9207), and signs no one in", async () => {
    const email = `iss-${randomUUID().slice(0, 6)}@${victimDomain}`;
    honestIdp.setAccount('iss-sub', { email, email_verified: true, name: 'Ida Issuer' });
    const cases: [string, (answer: URL) => void, string][] = [
      ['another issuer', (answer) => answer.searchParams.set('iss', evilIdp.issuer), 'The answer came from another identity provider than the one this sign-in started with.'],
      ['no iss', (answer) => answer.searchParams.delete('iss'), 'The identity provider says it names itself in its answers (iss), but this answer does not.'],
    ];
    for (const [, change, words] of cases) {
      const started = await start(email);
      const answer = new URL(await honestIdp.signInWithoutBrowser(started.location.href, 'iss-sub'));
      expect(answer.href.startsWith(victimRedirectUri)).toBe(true);
      change(answer);
      const refused = await get(answer.href, started.cookie);
      expect(refused.status).toBe(400);
      expect(refused.headers.getSetCookie().some((c) => c.startsWith('ag_session='))).toBe(false);
      expect(await refused.text()).toContain(words);
    }
    expect(await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(0);
  });
});
