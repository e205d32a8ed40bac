import { randomUUID } from 'node:crypto';
import { connectWithVerifiedDomains, redirectUriFor, startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { signupOverHttp, SignedUp } from './factories/rest';

/** A fresh documentation address per call, so tests never share a per-address counter. */
let ipSeq = 0;
const freshIp = () => `203.0.113.${++ipSeq}`;

/**
 * The per-address limits on `POST /auth/sso/start` and `GET /auth/sso/callback` (each start reads
 * the IdP's discovery, each callback makes a token request to it): past the limit the page answers
 * 429 with `Retry-After` and says to wait, nothing goes to the IdP, and other addresses go on.
 */
describe('Single sign-on: request limits per client address', () => {
  let t: TestApp;
  let idp: TestIdp;
  let admin: SignedUp;
  let domain: string;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({
      IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true',
      SSO_STARTS_PER_IP_PER_MINUTE: '3',
      SSO_CALLBACKS_PER_IP_PER_MINUTE: '2',
      TRUST_PROXY: 'true',
    });
    admin = await signupOverHttp(t);
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [await redirectUriFor(t, admin.organization.id, admin.accessToken)] });
    domain = testDomain();
    await connectWithVerifiedDomains(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer, emailDomains: [domain] });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const get = (path: string, ip: string, cookie?: string) =>
    fetch(new URL(path, t.baseUrl), { redirect: 'manual', headers: { 'X-Forwarded-For': ip, ...(cookie ? { cookie } : {}) } });

  /** The same-site POST start from `ip` (the start page before it is not counted). */
  const start = (email: string, ip: string) => startSingleSignOn(t.baseUrl, email, { next: '/orgs', headers: { 'X-Forwarded-For': ip } });

  function stateCookie(res: Response): string | undefined {
    const line = res.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state=') && !c.startsWith('ag_sso_state=;'));
    return line?.split(';')[0];
  }

  async function expectLimited(res: Response): Promise<string> {
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const text = await res.text();
    expect(text).toContain('Single sign-on failed');
    expect(text).toContain('Too many single sign-on attempts from this network. Please wait');
    expect(text).toContain('href="/login?next=%2Forgs"');
    return text;
  }

  it('refuses the fourth start from one address within the minute with 429, Retry-After and a page, while another address still starts', async () => {
    const ip = freshIp();
    const email = `sam-${randomUUID().slice(0, 6)}@${domain}`;
    for (let i = 0; i < 3; i++) {
      const res = await start(email, ip);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')!.startsWith(`${idp.issuer}/`)).toBe(true);
    }
    const refused = await start(email, ip);
    await expectLimited(refused);
    expect(refused.headers.get('location')).toBeNull();
    expect(stateCookie(refused)).toBeUndefined();

    // Counted whatever the email: an unclaimed domain counts against the same address too.
    await expectLimited(await start('x@unclaimed.example.org', ip));

    const elsewhere = await start(email, freshIp());
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.headers.get('location')!.startsWith(`${idp.issuer}/`)).toBe(true);

    // The counter lives in the database, shared by every instance.
    const rows = (await t.dataSource.query('SELECT hits FROM rate_limit_counters WHERE key = $1 AND window_ends_at > now()', [`sso-start:ip:${ip}`])) as { hits: number }[];
    expect(rows.map((r) => Number(r.hits))).toEqual([5]);
  });

  it('refuses the third callback from one address within the minute before any token request, and keeps the browser state for a retry', async () => {
    const callbackIp = freshIp();
    const email = `lia-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('lia-sub', { email, email_verified: true, name: 'Lia' });

    // Two callbacks from the address: a forged one (no browser state) and a real sign-in.
    const forged = await get('/auth/sso/callback?state=x&code=y', callbackIp);
    expect(forged.status).toBe(400);
    const first = await start(email, freshIp());
    const firstCallback = await idp.signInWithoutBrowser(first.headers.get('location')!, 'lia-sub');
    const signedIn = await get(firstCallback, callbackIp, stateCookie(first));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/orgs');

    // The third, a real one with its browser state: refused, the state cookie is not spent.
    const second = await start(email, freshIp());
    const cookie = stateCookie(second)!;
    const callback = await idp.signInWithoutBrowser(second.headers.get('location')!, 'lia-sub');
    const refused = await get(callback, callbackIp, cookie);
    await expectLimited(refused);
    expect(refused.headers.getSetCookie().some((c) => c.startsWith('ag_sso_session') || c.startsWith('ag_session='))).toBe(false);
    expect(refused.headers.getSetCookie().some((c) => c.startsWith('ag_sso_state='))).toBe(false);

    // Nothing reached the IdP: the same code still signs in from an address under its limit.
    const retried = await get(callback, freshIp(), cookie);
    expect(retried.status).toBe(303);
    expect(retried.headers.get('location')).toBe('/orgs');
    expect(retried.headers.getSetCookie().some((c) => c.startsWith('ag_session='))).toBe(true);
  });
});
