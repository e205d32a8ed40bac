import { randomUUID } from 'node:crypto';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations } from './helpers/dashboard-browser';
import { connectClient } from './helpers/mcp';
import { callTool } from './helpers/mcp-raw';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * The journey of a new organisation administrator, from the sign-in page to an agent's token and
 * back, in one browser and nothing else: sign up, create the first project, a service key and a
 * derived token, copy it, call a tool with it, issue an API key, read the audit log, revoke the
 * key and see the token refused, sign out.
 */
describeBrowser('a new administrator’s first visit, in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(() => close?.());

  it('goes from sign-up to a working agent token and back to a refused one', async () => {
    await browser.context.clearCookies();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const page = await browser.context.newPage();
    const email = `ada-${randomUUID().slice(0, 8)}@example.test`;
    try {
      // Anyone without a session is sent to sign in, with a way to sign up.
      await page.goto(`${t.baseUrl}/`);
      await page.waitForURL(/\/login\?next=%2F$/);
      await page.getByRole('link', { name: 'Create one' }).click();
      await page.getByLabel('Your name').fill('Ada Lovelace');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(`A long passphrase ${randomUUID()}`);
      await page.getByLabel('Organisation name').fill('Analytical Engines');
      await page.getByRole('button', { name: 'Create account' }).click();

      // Sign-up ends on the dashboard, asking for the first project.
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Create your first project' }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByLabel('Project name').fill('Difference engine');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByRole('cell', { name: 'Difference engine', exact: true }).waitFor();

      // A service key, and a token derived from it for the project: shown once, copied.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Service keys' }).click();
      await page.getByLabel('Name').fill('build server');
      await page.getByRole('button', { name: 'Create service key' }).click();
      await page.getByLabel('Project').selectOption({ label: 'Difference engine' });
      await page.getByRole('button', { name: 'Derive token' }).click();
      await page.getByRole('heading', { name: 'Token for “Difference engine”', level: 1 }).waitFor();
      await page.locator('.secret').getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      const token = (await page.evaluate('navigator.clipboard.readText()')) as string;
      expect(token).toMatch(/^dga_/);
      expect(page.url()).not.toContain(token);
      expect((await browser.context.cookies()).some((c) => c.value.includes(token))).toBe(false);

      // The official MCP client works with the pasted token, on the project it was derived for.
      const connected = await connectClient(t.baseUrl, '2025-11-25', { Authorization: `Bearer ${token}` });
      try {
        const created = await connected.client.callTool({ name: 'create_task', arguments: { title: 'Compute Bernoulli numbers' } });
        expect(created.isError).toBeFalsy();
        const project = await connected.client.callTool({ name: 'get_project', arguments: {} });
        expect(project.structuredContent).toMatchObject({ name: 'Difference engine' });
      } finally {
        await connected.close();
      }

      // An API key for a script, its secret shown once.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('link', { name: 'New API key' }).click();
      await page.getByLabel('Name').fill('nightly report');
      await page.getByRole('checkbox', { name: /projects:read/ }).check();
      await page.getByRole('button', { name: 'Create API key' }).click();
      const apiKey = await page.getByLabel('API key', { exact: true }).inputValue();
      const listed = await fetch(`${t.baseUrl}/api/organizations/${new URL(page.url()).pathname.split('/')[2]}/projects`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect(listed.status).toBe(200);

      // The audit log tells the story so far, newest first, including the agent's write.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      const log = await page.locator('main').innerText();
      for (const what of ['nightly report', 'build server', 'Difference engine']) expect(log).toContain(what);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Revoking the key ends the token at once.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Service keys' }).click();
      await page.getByRole('link', { name: 'build server' }).click();
      await page.getByRole('link', { name: 'Revoke service key' }).click();
      await page.getByRole('button', { name: 'Revoke service key' }).click();
      await page.getByRole('status').filter({ hasText: 'Service key revoked.' }).waitFor();
      expect((await callTool(t.baseUrl, token, 'modern', 'get_project', {})).status).toBe(401);

      // Signing out ends the session on the server: the dashboard asks to sign in again.
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(/\/login$/);
      await page.goto(`${t.baseUrl}/`);
      await page.waitForURL(/\/login\?next=/);
    } finally {
      await page.close();
    }
  });
});
