import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('the API keys section in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(() => close?.());

  const projectsOf = (orgId: string, key: string) => fetch(`${t.baseUrl}/api/organizations/${orgId}/projects`, { headers: { authorization: `Bearer ${key}` } });

  it('creates a key with some permissions, whose secret works on REST, then revokes it; no serious accessibility violation on any page', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/api-keys`);
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      await page.getByText('No API keys yet.').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByRole('link', { name: 'New API key' }).click();
      await page.getByRole('heading', { name: 'New API key', level: 1 }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Nothing chosen: the errors are next to their fields.
      await page.getByRole('button', { name: 'Create API key' }).click();
      await page.getByText('Enter name').waitFor();
      await page.getByText('Choose at least one permission').waitFor();
      expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByLabel('Name').fill('Release script');
      await page.getByRole('group', { name: 'Projects' }).getByRole('checkbox', { name: /projects:read/ }).check();
      await page.getByRole('checkbox', { name: /members:read/ }).check();
      await page.getByRole('button', { name: 'Create API key' }).click();
      await page.getByRole('heading', { name: 'API key “Release script”', level: 1 }).waitFor();
      const secret = await page.getByLabel('API key', { exact: true }).inputValue();
      expect(secret).toMatch(/^rk_[A-Za-z0-9]+$/);
      expect(page.url()).not.toContain(secret);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // The secret opens what its permissions allow, and nothing else.
      expect((await projectsOf(org.organization.id, secret)).status).toBe(200);
      const audit = await fetch(`${t.baseUrl}/api/organizations/${org.organization.id}/audit-events`, { headers: { authorization: `Bearer ${secret}` } });
      expect(audit.status).toBe(403);

      // Back on the list: shown with its permissions, never with its secret.
      await page.getByRole('link', { name: 'Back to API keys' }).click();
      await page.getByRole('cell', { name: 'Release script', exact: true }).waitFor();
      await page.getByRole('cell', { name: 'projects:read, members:read' }).waitFor();
      expect(await page.content()).not.toContain(secret);
      expect(await seriousAxeViolations(page)).toEqual([]);
      // Going back does not show the secret again: the page that showed it answered a POST and was
      // never stored (no-store), so Chromium has nothing to show without posting again.
      await expect(page.goBack()).rejects.toThrow('net::ERR_CACHE_MISS');
      await page.waitForURL(/^chrome-error:/);
      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/api-keys`);

      await page.getByRole('link', { name: 'Revoke Release script' }).click();
      await page.getByRole('heading', { name: 'Revoke the API key “Release script”?' }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Revoke API key' }).click();
      await page.getByRole('status').filter({ hasText: 'API key revoked.' }).waitFor();
      expect(await page.getByRole('link', { name: 'Revoke Release script' }).count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect((await projectsOf(org.organization.id, secret)).status).toBe(401);
    } finally {
      await page.close();
    }
  });
});
