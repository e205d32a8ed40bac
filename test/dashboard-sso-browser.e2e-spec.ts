import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createProject } from './factories';
import { Chromium, chromiumAvailable, launchChromium } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { FakeTxtRecords, identityProviderPath } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * With `DOCS_SCREENSHOTS=1`, the page as filled here is photographed into
 * docs/images/sso-settings.png (the picture of docs/sso.md); otherwise nothing is written.
 */
const SCREENSHOT = process.env.DOCS_SCREENSHOTS === '1' ? join(__dirname, '..', 'docs', 'images', 'sso-settings.png') : undefined;

describeBrowser('the Single sign-on page in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let idp: TestIdp;
  let browser: Chromium;
  const records = new FakeTxtRecords();

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' }, { providers: [records.provider] });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.stop();
  });

  it('an admin connects the test IdP with the form, verifies one domain of two, and gives an AI client a project', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const orgId = org.organization.id;
    await t.dataSource.query('UPDATE organizations SET name = $2 WHERE id = $1', [orgId, 'Acme Robotics']);
    await t.dataSource.query('UPDATE users SET name = $2, email = $3 WHERE id = $1', [org.admin.id, 'Ada Lovelace', `ada-${orgId.slice(0, 8)}@acme-robotics.example`]);
    await createProject(t.dataSource, orgId, 'Website relaunch');
    await createProject(t.dataSource, orgId, 'Inventory');
    const ssoUrl = `${t.baseUrl}/orgs/${orgId}/single-sign-on`;
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1200, height: 800 });
    try {
      // From the organisation's navigation to the empty form.
      await page.goto(`${t.baseUrl}/orgs/${orgId}/projects`);
      await page.getByRole('link', { name: 'Single sign-on' }).click();
      await page.getByRole('heading', { name: 'Connect an identity provider' }).waitFor();
      expect(page.url()).toBe(ssoUrl);
      // The organisation's own redirect URI is shown before anything is connected, the one REST gives.
      const ownUri = (await request(t.baseUrl).get(`${identityProviderPath(orgId)}/redirect-uri`).auth(org.admin.session, { type: 'bearer' }).expect(200)).body.redirectUri;
      expect(await page.locator('#sso-redirect-uri').textContent()).toBe(ownUri);

      await page.getByLabel('Issuer').fill(idp.issuer);
      await page.getByLabel('Client ID', { exact: true }).fill('agent-gateway');
      await page.getByLabel('Client secret').fill('test-idp-client-secret');
      await page.getByLabel('Email domains').fill('acme-robotics.example\nacme.example');
      await page.getByLabel('Groups claim (optional)').fill('groups');
      await page.getByLabel('Group of mapping 1').fill('gateway-admins');
      await page.getByLabel('Role of mapping 1').selectOption('admin');
      // Another row, without script: the form comes back with one more row and asks for the secret again.
      await page.getByRole('button', { name: 'Add a mapping row' }).click();
      await page.getByText('Type the client secret again before saving').waitFor();
      expect(await page.getByLabel('Group of mapping 1').inputValue()).toBe('gateway-admins');
      expect(await page.getByLabel('Client secret').inputValue()).toBe('');
      await page.getByLabel('Group of mapping 2').fill('engineering');
      await page.getByLabel('Client secret').fill('test-idp-client-secret');
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.getByText('Identity provider connected.').waitFor();
      await page.getByRole('heading', { name: 'Connected identity provider' }).waitFor();
      expect(await page.locator('#sso-redirect-uri').textContent()).toBe(ownUri);
      expect(await page.content()).not.toContain('test-idp-client-secret');

      // Both domains pending; publish the record of one and verify it.
      const settings = (await request(t.baseUrl).get(identityProviderPath(orgId)).auth(org.admin.session, { type: 'bearer' }).expect(200)).body;
      expect(settings.roleMappings).toEqual([
        { group: 'gateway-admins', role: 'admin' },
        { group: 'engineering', role: 'member' },
      ]);
      const acme = settings.domains.find((d: { domain: string }) => d.domain === 'acme-robotics.example');
      await page.getByRole('button', { name: 'Verify acme-robotics.example' }).click();
      await page.getByText(`No TXT record "${acme.txtRecord.value}" was found`).waitFor();
      records.publishRecord(acme.txtRecord);
      await page.getByRole('button', { name: 'Verify acme-robotics.example' }).click();
      await page.getByText('Domain verified.').waitFor();
      const rows = page.locator('#sso-domains-title ~ .table-wrap tbody tr');
      await expectRow(rows.filter({ hasText: 'acme-robotics.example' }), /Verified/);
      await expectRow(rows.filter({ hasText: /^\s*acme\.example/ }), /Pending/);
      expect(await page.getByRole('button', { name: 'Verify acme.example' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Verify acme-robotics.example' }).count()).toBe(0);

      // An AI client (the organisation's own client, SPEC §10), with a project found through the picker's search.
      const aiClient = (await request(t.baseUrl).post(`/api/organizations/${orgId}/oauth-clients`).auth(org.admin.session, { type: 'bearer' }).send({ clientName: 'Assistant' }).expect(201)).body
        .clientId as string;
      await page.getByLabel('Search projects by name').fill('website');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL(/projectQuery=website/);
      expect(await page.getByLabel('Project of client 1').locator('option').allTextContents()).toEqual(['No project yet (refused)', 'Website relaunch']);
      await page.getByLabel('Client ID of client 1').fill(aiClient);
      await page.getByLabel('Project of client 1').selectOption({ label: 'Website relaunch' });
      expect(await page.getByLabel('Accept identity assertions (ID-JAG) from this identity provider').isDisabled()).toBe(true);
      // Enter in a field saves (the form's default button), it does not add a row.
      await page.getByLabel('Client ID of client 1').press('Enter');
      await page.getByText('AI client settings saved.').waitFor();
      expect(await page.getByLabel('Client ID of client 1').inputValue()).toBe(aiClient);
      expect(await page.getByLabel('Project of client 1').locator('option:checked').textContent()).toBe('Website relaunch');
      const saved = (await request(t.baseUrl).get(identityProviderPath(orgId)).auth(org.admin.session, { type: 'bearer' }).expect(200)).body;
      expect(saved.idJagClients).toEqual([{ clientId: aiClient, projectId: expect.any(String) }]);
      expect(saved.domains.map((d: { domain: string; status: string }) => [d.domain, d.status])).toEqual([
        ['acme-robotics.example', 'verified'],
        ['acme.example', 'pending'],
      ]);

      expect(await seriousAxeViolations(page)).toEqual([]);
      if (SCREENSHOT) {
        await page.goto(ssoUrl);
        mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
        await page.screenshot({ path: SCREENSHOT, fullPage: true });
      }
    } finally {
      await page.close();
    }
  });
});

async function expectRow(row: import('playwright-core').Locator, text: RegExp): Promise<void> {
  expect(await row.count()).toBe(1);
  expect(await row.textContent()).toMatch(text);
}
