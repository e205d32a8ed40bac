import { createProject } from './factories';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { dashboardOrganization } from './helpers/dashboard';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { connectClient } from './helpers/mcp';
import { callTool } from './helpers/mcp-raw';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('the Service keys section in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(() => close?.());

  it('creates a key, derives a token, copies it, calls a tool with it, revokes the key and sees the token refused', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await browser.context.clearCookies();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    try {
      // The empty list says what a service key is for and offers "New service key".
      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/projects`);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Service keys' }).click();
      await page.getByRole('heading', { name: 'Service keys', level: 1 }).waitFor();
      await page.getByText('No service keys yet.').waitFor();
      await page.getByRole('heading', { name: 'New service key' }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      // A refused name is shown next to the field.
      await page.getByRole('button', { name: 'Create service key' }).click();
      await page.getByText('Enter name').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByLabel('Name').fill('deploy bot');
      await page.getByRole('button', { name: 'Create service key' }).click();
      await page.getByRole('heading', { name: 'Service key “deploy bot”', level: 1 }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Service key created.' }).waitFor();

      // No project yet: the key page says so and links to Projects.
      const toProjects = page.getByRole('link', { name: 'create a project in Projects' });
      await toProjects.waitFor();
      expect(await toProjects.getAttribute('href')).toBe(`/orgs/${org.organization.id}/projects`);
      expect(await seriousAxeViolations(page)).toEqual([]);

      await createProject(t.dataSource, org.organization.id, 'Website');
      await page.reload();
      await page.getByLabel('Project').selectOption({ label: 'Website' });
      await page.getByRole('button', { name: 'Derive token' }).click();
      await page.getByRole('heading', { name: 'Token for “Website”', level: 1 }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Copy, then read the clipboard as the person would paste it.
      const shown = await page.getByLabel('Project token').inputValue();
      expect(shown).toMatch(/^dga_[A-Za-z0-9]{30,}$/);
      await page.locator('.secret').getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
      expect(copied).toBe(shown);
      expect(await page.getByLabel('Claude Code (run in a terminal)').inputValue()).toContain(`--header 'Authorization: Bearer ${copied}'`);

      // The official MCP client calls a tool with the copied token.
      const connected = await connectClient(t.baseUrl, '2025-11-25', { Authorization: `Bearer ${copied}` });
      try {
        const result = await connected.client.callTool({ name: 'get_project', arguments: {} });
        expect(result.structuredContent).toMatchObject({ name: 'Website' });
      } finally {
        await connected.close();
      }

      // Reloading the answer sends the form again (Chromium here re-posts without asking): the key
      // already has a token for the project, so the answer is the form with that error, no secret.
      const reloaded = await page.reload();
      expect(reloaded?.status()).toBe(409);
      await page.getByText('This key already has a token for that project.').waitFor();
      expect(await page.content()).not.toContain(copied);

      // Going back, or reloading the key page, never shows the secret again.
      await page.goBack();
      await page.getByRole('heading', { name: 'Service key “deploy bot”', level: 1 }).waitFor();
      expect(await page.content()).not.toContain(copied);
      await page.reload();
      await page.getByRole('cell', { name: 'Website', exact: true }).waitFor();
      expect(await page.content()).not.toContain(copied);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // The populated list.
      await page.getByRole('link', { name: 'All service keys' }).click();
      await page.getByRole('link', { name: 'deploy bot' }).waitFor();
      await page.getByRole('cell', { name: '1 live', exact: true }).waitFor();
      expect(await page.content()).not.toContain(copied);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Revoke the key: the confirmation says what ends, then the token is refused.
      await page.getByRole('link', { name: 'deploy bot' }).click();
      await page.getByRole('link', { name: 'Revoke service key' }).click();
      await page.getByText('1 derived token ends with it').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Revoke service key' }).click();
      await page.getByRole('status').filter({ hasText: 'Service key revoked.' }).waitFor();
      const refused = await callTool(t.baseUrl, copied, 'legacy', 'get_project', {});
      expect(refused.status).toBe(401);
    } finally {
      await page.close();
    }
  });

  it('rotates a token with an overlap and revokes the old one, every page checked by axe-core', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await createProject(t.dataSource, org.organization.id, 'Billing');
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/service-keys`);
      await page.getByLabel('Name').fill('billing sync');
      await page.getByRole('button', { name: 'Create service key' }).click();
      await page.getByLabel('Project').selectOption({ label: 'Billing' });
      await page.getByRole('button', { name: 'Derive token' }).click();
      const first = await page.getByLabel('Project token').inputValue();
      await page.getByRole('link', { name: 'Done: back to “billing sync”' }).click();

      await page.getByRole('link', { name: 'Rotate the token for Billing' }).click();
      await page.getByRole('heading', { name: 'Rotate the token for “Billing”' }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByLabel('The current token keeps working for').selectOption({ label: '1 hour' });
      await page.getByRole('button', { name: 'Rotate token' }).click();
      await page.getByRole('heading', { name: 'New token for “Billing”', level: 1 }).waitFor();
      await page.getByText('The previous token keeps working until').waitFor();
      const second = await page.getByLabel('Project token').inputValue();
      expect(second).not.toBe(first);
      expect(await seriousAxeViolations(page)).toEqual([]);
      for (const token of [first, second]) expect((await callTool(t.baseUrl, token, 'legacy', 'get_project', {})).status).toBe(200);

      await page.getByRole('link', { name: 'Done: back to “billing sync”' }).click();
      await page.getByText(/Rotating out until/).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      // The rotating-out token can be revoked, not rotated again.
      expect(await page.getByRole('link', { name: /^Rotate the/ }).count()).toBe(1);
      await page.getByRole('link', { name: 'Revoke the rotating-out token for Billing' }).click();
      await page.getByRole('heading', { name: 'Revoke the token for “Billing”?' }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Revoke token' }).click();
      await page.getByRole('status').filter({ hasText: 'Token revoked.' }).waitFor();
      expect((await callTool(t.baseUrl, first, 'legacy', 'get_project', {})).status).toBe(401);
      expect((await callTool(t.baseUrl, second, 'legacy', 'get_project', {})).status).toBe(200);
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
