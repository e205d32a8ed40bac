import { randomUUID } from 'node:crypto';
import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CallbackServer } from './helpers/callback-server';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations } from './helpers/dashboard-browser';
import { TestOAuthProvider } from './helpers/oauth-provider';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('a new person connects an AI client: sign-up from its sign-in, the project named on the consent screen (Debian Chromium)', () => {
  let t: TestApp;
  let callback: CallbackServer;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
    callback = await CallbackServer.start();
  });
  afterAll(async () => {
    await callback?.close();
    await close?.();
  });

  it("authorize URL → sign in → Create one → sign-up → consent → Project name → Approve → the SDK client's token calls a tool", async () => {
    const serverUrl = new URL(`${t.baseUrl}/api/mcp`);
    // The browser step happens below, in Chromium: the provider only keeps the URL.
    const provider = new TestOAuthProvider({ redirectUri: callback.redirectUri, clientName: 'Journey Host', state: 'journey-state', authorize: async () => {} });
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');

    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    try {
      await page.goto(provider.authorizationUrl!.href);
      await page.waitForURL(/\/login\?next=/);
      await page.getByRole('link', { name: 'Create one' }).click();
      await page.waitForURL(/\/signup\?next=/);
      const email = `journey-${randomUUID().slice(0, 8)}@example.test`;
      await page.getByLabel('Your name').fill('Journey Person');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('correct horse battery staple');
      await page.getByLabel('Organisation name').fill('Journey Org');
      await page.getByRole('button', { name: 'Create account' }).click();

      await page.waitForURL(/\/api\/agent\/oauth\/authorize\?/);
      await page.getByRole('heading', { name: 'Allow Journey Host to use Agent Gateway?' }).waitFor();
      expect(await page.getByText('created in Journey Org when you approve').count()).toBe(1);
      expect(await page.getByRole('radio').count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByLabel('Project name').fill('Named on consent');
      await page.getByRole('checkbox', { name: /tasks:delete/ }).uncheck();
      const received = callback.next();
      await page.getByRole('button', { name: 'Approve' }).click();
      const url = await received;
      await page.waitForLoadState('load');
      expect(url.searchParams.get('state')).toBe('journey-state');

      expect(await auth(provider, { serverUrl, authorizationCode: url.searchParams.get('code')!, iss: url.searchParams.get('iss')! })).toBe('AUTHORIZED');
      expect(provider.tokens()!.access_token).toMatch(/^dga_/);
      const mcp = new Client({ name: 'journey', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
      try {
        const project = await mcp.callTool({ name: 'get_project', arguments: {} });
        expect(project.isError).toBeFalsy();
        expect(project.structuredContent).toMatchObject({
          name: 'Named on consent',
          organization: { name: 'Journey Org' },
          permissions: ['project:read', 'tasks:read', 'tasks:write'],
        });
        const task = await mcp.callTool({ name: 'create_task', arguments: { title: 'First task' } });
        expect(task.isError).toBeFalsy();
      } finally {
        await mcp.close();
      }

      // The dashboard shows the project the consent screen made.
      await page.goto(`${t.baseUrl}/`);
      await page.getByRole('cell', { name: 'Named on consent', exact: true }).waitFor();
    } finally {
      await page.close();
    }
  });
});
