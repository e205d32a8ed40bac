import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { browserApp } from './helpers/browser-app';
import { CallbackServer } from './helpers/callback-server';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { connectWithVerifiedDomains, redirectUriFor, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { createProject } from './factories';
import { authorizePath, pkcePair, registerClient, tokenRequest } from './factories/oauth';
import { signupOverHttp, SignedUp } from './factories/rest';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * Single sign-on in Debian's Chromium: the sign-in page (email first, "Continue with single
 * sign-on"), the test identity provider's own sign-in form, and back, signed in; and an AI
 * client's consent flow going through it with `next` kept.
 */
describeBrowser('single sign-on in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;
  let idp: TestIdp;
  let callback: CallbackServer;
  let admin: SignedUp;
  let domain: string;

  beforeAll(async () => {
    idp = await startTestIdp();
    ({ t, browser, close } = await browserApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' }));
    callback = await CallbackServer.start();
    admin = await signupOverHttp(t);
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [await redirectUriFor(t, admin.organization.id, admin.accessToken)] });
    domain = testDomain();
    await connectWithVerifiedDomains(t, admin.organization.id, admin.accessToken, {
      issuer: idp.issuer,
      emailDomains: [domain],
      groupsClaim: 'groups',
      roleMappings: [{ group: 'gw-admins', role: 'admin' }],
    });
  });
  afterAll(async () => {
    await callback?.close();
    await close?.();
    await idp?.stop();
  });

  /** At the IdP's sign-in form (the subject is the email, which `login_hint` already filled in): sign in there. */
  async function signInAtIdp(page: Page, email: string): Promise<void> {
    await page.waitForURL((url) => url.href.startsWith(`${idp.issuer}/interaction/`));
    await page.getByRole('heading', { name: 'Sign in to the test identity provider' }).waitFor();
    expect(await page.getByLabel('Subject').inputValue()).toBe(email);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('signs a new person in from the sign-in page through the identity provider, with the role their groups map to', async () => {
    const email = `ann-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount(email, { email, email_verified: true, name: 'Ann Browser', groups: ['gw-admins'] });
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
      await signInAtIdp(page, email);
      await page.waitForURL((url) => url.origin === t.baseUrl && !url.pathname.startsWith('/auth/sso') && url.pathname !== '/login');
      await page.getByText(admin.organization.name).first().waitFor();
      const me = await page.request.get(`${t.baseUrl}/api/me`, {
        headers: { Authorization: `Bearer ${(await browser.context.cookies(t.baseUrl)).find((c) => c.name === 'ag_session')!.value}` },
      });
      expect(await me.json()).toMatchObject({
        user: { email, name: 'Ann Browser' },
        memberships: [{ organization: { id: admin.organization.id }, role: 'admin' }],
      });
    } finally {
      await page.close();
    }
  });

  it("keeps an AI client's consent request through single sign-on", async () => {
    const project = await createProject(t.dataSource, admin.organization.id, `SSO project ${randomUUID().slice(0, 6)}`);
    const email = `bea-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount(email, { email, email_verified: true, name: 'Bea Browser' });
    const client = await registerClient(t.baseUrl, { client_name: 'SSO Test Client', redirect_uris: [callback.redirectUri] });
    const { verifier, challenge } = pkcePair();
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    try {
      await page.goto(
        `${t.baseUrl}${authorizePath({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: callback.redirectUri,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 'sso-state',
          scope: 'project:read tasks:read',
          resource: `${t.baseUrl}/api/mcp`,
        })}`,
      );
      await page.waitForURL(/\/login\?next=/);
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
      await signInAtIdp(page, email);
      await page.waitForURL(/\/api\/agent\/oauth\/authorize\?/);
      await page.getByRole('heading', { name: 'Allow SSO Test Client to use Agent Gateway?' }).waitFor();
      await page.getByRole('radio', { name: project.name }).check();
      const received = callback.next();
      await page.getByRole('button', { name: 'Approve' }).click();
      const url = await received;
      await page.waitForLoadState('load');
      expect(url.searchParams.get('state')).toBe('sso-state');
      const tokens = await tokenRequest(t.baseUrl, {
        grant_type: 'authorization_code',
        code: url.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: callback.redirectUri,
        client_id: client.client_id,
        resource: `${t.baseUrl}/api/mcp`,
      });
      expect(tokens.status).toBe(200);
      expect(tokens.body.scope).toBe('project:read tasks:read');
    } finally {
      await page.close();
    }
  });
});
