import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { setUpEnterprise, idJagClaims, signedIdJag, tradeIdJag } from './factories/id-jag';
import { signupOverHttp, type SignedUp } from './factories/rest';
import {
  connectWithVerifiedDomains,
  identityProviderPath,
  identityProviderSettings,
  insertIdentityProvider,
  redirectUriFor,
  startSingleSignOn,
  TEST_IDP_CLIENT_ID,
  TEST_IDP_CLIENT_SECRET,
  testDomain,
} from './helpers/identity';
import { startTestApp, type TestApp } from './helpers/test-app';
import { startTestIdp, type TestIdp } from './helpers/test-idp';

const METRICS_TOKEN = randomBytes(24).toString('base64url');

/**
 * An identity provider that cannot be reached (SPEC §10, "Outages"): at sign-in the person sees a
 * page saying so with 503 and `Retry-After`, at an ID-JAG trade the client gets 503
 * `temporarily_unavailable` with `Retry-After` — never a refusal of their token — and each is
 * counted by `agent_gateway_idp_failures_total` (by what was fetched and where, never by issuer).
 * Saving settings against an IdP that is down stays a 400 naming it. The IdPs are real ones
 * (oidc-provider) that are stopped at the moment the test needs them gone.
 */
describe('Identity provider outages', () => {
  let t: TestApp;
  let admin: SignedUp;

  beforeAll(async () => {
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', METRICS_TOKEN, REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
    admin = await signupOverHttp(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The failure counter's series as `/metrics` shows them: `kind/stage` → count. */
  async function failures(): Promise<{ counts: Record<string, number>; lines: string[] }> {
    const res = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const lines = (await res.text()).split('\n').filter((l) => l.startsWith('agent_gateway_idp_failures_total'));
    const counts: Record<string, number> = {};
    for (const line of lines) {
      const match = /^agent_gateway_idp_failures_total\{kind="(\w+)",stage="(\w+)"\} (\d+)$/.exec(line);
      if (match) counts[`${match[1]}/${match[2]}`] = Number(match[3]);
    }
    return { counts, lines };
  }

  async function stoppedIdp(): Promise<TestIdp> {
    const idp = await startTestIdp();
    await idp.stop();
    return idp;
  }

  it('shows a 503 page saying the identity provider cannot be reached when its discovery document cannot be fetched at sign-in, and counts it', async () => {
    const before = (await failures()).counts['discovery/sign_in'] ?? 0;
    const idp = await stoppedIdp();
    const domain = testDomain('down');
    // Settings written as they were saved while the IdP was up: nothing of it is cached in this process.
    await insertIdentityProvider(t, admin.organization.id, { issuer: idp.issuer, verifiedDomains: [domain] });
    const res = await startSingleSignOn(t.baseUrl, `ann@${domain}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.headers.get('location')).toBeNull();
    const page = await res.text();
    expect(page).toContain('The identity provider cannot be reached just now');
    expect(page).toContain('Please try again in a few minutes.');
    const after = await failures();
    expect(after.counts['discovery/sign_in']).toBe(before + 1);
    // Issuers are strings tenants choose: never a label.
    expect(after.lines.join('\n')).not.toContain(new URL(idp.issuer).host);
  });

  it('shows a 503 page when the identity provider goes down between the start and its answer (the token endpoint), and signs no one in', async () => {
    const idp = await startTestIdp();
    const owner = await signupOverHttp(t);
    const domain = testDomain('gone');
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [await redirectUriFor(t, owner.organization.id, owner.accessToken)] });
    await connectWithVerifiedDomains(t, owner.organization.id, owner.accessToken, { issuer: idp.issuer, emailDomains: [domain] });
    const email = `bo@${domain}`;
    idp.setAccount('bo-sub', { email, email_verified: true, name: 'Bo Outage' });
    const before = (await failures()).counts['token/sign_in'] ?? 0;

    const started = await startSingleSignOn(t.baseUrl, email);
    expect(started.status).toBe(303);
    const cookie = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!.split(';')[0];
    const callback = await idp.signInWithoutBrowser(started.headers.get('location')!, 'bo-sub');
    await idp.stop();

    const res = await fetch(new URL(callback, t.baseUrl), { redirect: 'manual', headers: { cookie } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('ag_session='))).toBe(false);
    expect(await res.text()).toContain('The identity provider cannot be reached just now');
    expect((await failures()).counts['token/sign_in']).toBe(before + 1);
    expect(await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(0);
  });

  it('answers an ID-JAG trade 503 temporarily_unavailable with Retry-After when the key set cannot be fetched, and counts it', async () => {
    const idp = await startTestIdp();
    const e = await setUpEnterprise(t, idp, { tenant: null, direct: true });
    // One trade while the IdP is up: its discovery document and key set are cached.
    expect((await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)))).status).toBe(200);
    // The IdP rotates its key and goes down: the new kid makes the key set be fetched again, which fails.
    await idp.rotateKeys();
    await idp.stop();
    const before = (await failures()).counts['jwks/id_jag'] ?? 0;
    const realNow = Date.now.bind(Date);
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 10_000);
    let res: Awaited<ReturnType<typeof tradeIdJag>>;
    try {
      res = await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)));
    } finally {
      clock.mockRestore();
    }
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.body.error).toBe('temporarily_unavailable');
    expect(res.body.error_description).toMatch(/^The identity provider's key set cannot be read just now: The identity provider's key set at 127\.0\.0\.1 could not be fetched/);
    expect((await failures()).counts['jwks/id_jag']).toBe(before + 1);
    // No token was issued for the refused trade.
    const [{ count }] = (await t.dataSource.query('SELECT count(*)::int AS count FROM oauth_grants WHERE client_id = $1', [e.client.client_id])) as { count: number }[];
    expect(count).toBe(1);
  });

  it('still refuses a forged ID-JAG with 400 invalid_grant while the IdP is up (not an outage)', async () => {
    const idp = await startTestIdp();
    try {
      const e = await setUpEnterprise(t, idp, { tenant: null, direct: true });
      const res = await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e), {}, { key: 'foreign' }));
      expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
    } finally {
      await idp.stop();
    }
  });

  it('refuses to save settings naming an identity provider that is down: 400 identity_provider_unreachable naming it, nothing saved', async () => {
    const owner = await signupOverHttp(t);
    const idp = await stoppedIdp();
    const before = await failures();
    const res = await request(t.baseUrl)
      .put(identityProviderPath(owner.organization.id))
      .set('Authorization', `Bearer ${owner.accessToken}`)
      .send(identityProviderSettings({ issuer: idp.issuer, emailDomains: [`${randomUUID().slice(0, 8)}.example.com`] }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('identity_provider_unreachable');
    expect(res.body.message).toContain(`The identity provider's discovery document at 127.0.0.1 could not be fetched`);
    const get = await request(t.baseUrl).get(identityProviderPath(owner.organization.id)).set('Authorization', `Bearer ${owner.accessToken}`);
    expect(get.body.issuer ?? null).toBeNull();
    // Saving is not a sign-in or a trade: the failure counter does not move.
    expect((await failures()).counts).toEqual(before.counts);
  });
});
