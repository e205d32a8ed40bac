import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { FakeTxtRecords, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { signupOverHttp } from './factories/rest';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * The whole enterprise set-up from the pages, as a new admin does it (issue "Enterprise setup a
 * person can finish"): the redirect URI read before connecting, the identity provider connected
 * with an extra `groups` scope that maps a person to admin, the domain verified by its TXT record,
 * that person signing in through the IdP, then making a SCIM token and an organisation client on
 * their pages and requiring single sign-on after confirming who it locks out. No session JWT in
 * curl at any step. Run on PostgreSQL as well as on the embedded database.
 */
describeBrowser('an enterprise set-up from the pages, end to end (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;
  let idp: TestIdp;
  const records = new FakeTxtRecords();

  beforeAll(async () => {
    // The IdP sends the groups claim only when asked for the `groups` scope, as Okta's custom authorization servers can.
    idp = await startTestIdp({ groupsScope: 'groups' });
    ({ t, browser, close } = await browserApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' }, { providers: [records.provider] }));
  });
  afterAll(async () => {
    await close?.();
    await idp?.stop();
  });

  /** Waits for the page's notice (the `role="status"` banner after a save). */
  const notice = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();

  it('connects the IdP, signs a person in as admin through the groups scope, makes a SCIM token and an organisation client, and requires single sign-on', async () => {
    const founder = await signupOverHttp(t);
    const orgId = founder.organization.id;
    const ssoPage = `${t.baseUrl}/orgs/${orgId}/single-sign-on`;
    const domain = testDomain('acme');
    const email = `gia-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount(email, { email, email_verified: true, name: 'Gia Admin', groups: ['gw-admins'] });

    // 1. The founder (a password account) connects the identity provider.
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, founder.accessToken);
    let page = await browser.context.newPage();
    try {
      await page.goto(ssoPage);
      const redirectUri = await page.locator('#sso-redirect-uri').innerText();
      expect(redirectUri).toMatch(new RegExp(`^${t.baseUrl}/auth/sso/callback/[A-Za-z0-9_-]{22}$`));
      // At the IdP: the application, with this organisation's own redirect URI.
      await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [redirectUri] });

      await page.getByLabel('Issuer').fill(idp.issuer);
      await page.getByLabel('Client ID').fill(TEST_IDP_CLIENT_ID);
      await page.getByLabel('Client secret').fill(TEST_IDP_CLIENT_SECRET);
      await page.getByLabel('Email domains').fill(domain);
      await page.getByLabel('Extra scopes (optional)').fill('groups');
      await page.getByLabel('Groups claim (optional)').fill('groups');
      await page.getByLabel('Group of mapping 1').fill('gw-admins');
      await page.getByLabel('Role of mapping 1').selectOption('admin');
      await page.getByRole('button', { name: 'Connect' }).click();
      await notice(page, 'Identity provider connected.');
      expect(await page.locator('dt:has-text("Scopes asked for at sign-in") + dd').innerText()).toBe('openid email profile groups');

      // The domain: its TXT record published, then verified on the page.
      const row = page.getByRole('row', { name: new RegExp(domain.replace(/\./g, '\\.')) });
      const [name, value] = await row.locator('code').allInnerTexts();
      records.publish(name, value);
      await page.getByRole('button', { name: `Verify ${domain}` }).click();
      await notice(page, 'Domain verified.');
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }

    // 2. Gia signs in through the IdP from the sign-in page: the groups scope brings her group, which maps to admin.
    await browser.context.clearCookies();
    page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${idp.issuer}/interaction/`));
      expect(await page.getByLabel('Subject').inputValue()).toBe(email);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.origin === t.baseUrl && !url.pathname.startsWith('/auth/sso') && url.pathname !== '/login');
      const [role] = (await t.dataSource.query('SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 AND u.email = $2', [
        orgId,
        email,
      ])) as { role: string }[];
      expect(role).toEqual({ role: 'admin' });

      // The Single sign-on page: the groups claim arrived.
      await page.goto(ssoPage);
      expect(await page.locator('#sso-groups-claim-seen').innerText()).toMatch(/^Carried: the ID token of the last sign-in \(.+\) had groups\.$/);

      // 3. A SCIM token for the IdP's provisioning, made on its page.
      await page.goto(`${t.baseUrl}/orgs/${orgId}/scim-tokens`);
      await page.getByRole('link', { name: 'New SCIM token' }).click();
      await page.getByLabel('Name').fill('Acme IdP');
      await page.getByRole('button', { name: 'Make SCIM token' }).click();
      const scimToken = await page.locator('#scim-token-secret').inputValue();
      expect(scimToken).toMatch(/^scim_/);
      await request(t.baseUrl).get('/scim/v2/Users').set('Authorization', `Bearer ${scimToken}`).expect(200);

      // 4. An organisation client for an AI client the IdP vouches for (ID-JAG), made on the Connected clients page.
      await page.goto(`${t.baseUrl}/orgs/${orgId}/clients`);
      await page.getByRole('link', { name: 'New organisation client' }).click();
      await page.getByLabel('Name').fill('Acme assistant');
      await page.getByRole('button', { name: 'Make organisation client' }).click();
      await page.getByRole('heading', { name: 'Organisation client “Acme assistant”' }).waitFor();
      const clientId = await page.locator('#organization-client-id').inputValue();
      const [client] = (await t.dataSource.query('SELECT client_name FROM oauth_clients WHERE client_id = $1', [clientId])) as { client_name: string }[];
      expect(client).toEqual({ client_name: 'Acme assistant' });

      // 5. Require single sign-on: the page names the founder, whose password account cannot sign in through the IdP, and asks.
      await page.goto(ssoPage);
      await page.locator('input[name="requireSso"]').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      const warning = page.locator('#sso-lockout');
      await warning.waitFor();
      expect(await warning.locator('li').allInnerTexts()).toEqual([`${founder.user.name} <${founder.user.email}> (admin)`]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      // Unconfirmed, nothing changed.
      const [before] = (await t.dataSource.query('SELECT require_sso FROM identity_providers WHERE organization_id = $1', [orgId])) as { require_sso: boolean }[];
      expect(before.require_sso).toBe(false);
      // The client secret is never sent back: typed again with the confirmation.
      await page.getByLabel('Client secret').fill(TEST_IDP_CLIENT_SECRET);
      await page.getByLabel('Require single sign-on anyway').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await notice(page, 'Settings saved.');
      expect(await page.locator('input[name="requireSso"]').isChecked()).toBe(true);
    } finally {
      await page.close();
    }

    // 6. The founder's password session no longer opens the organisation; the page says who can switch it off.
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, founder.accessToken);
    page = await browser.context.newPage();
    try {
      const refused = await page.goto(ssoPage);
      expect(refused!.status()).toBe(403);
      await page.getByRole('heading', { name: 'Single sign-on required' }).waitFor();
      expect(await page.locator('code').allInnerTexts()).toContain(`npm run cli -- sso-require-off --organization ${orgId}`);
    } finally {
      await page.close();
    }
  });
});
