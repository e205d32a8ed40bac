import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { createProject } from './factories';
import { tokenRequest } from './factories/oauth';
import { invalidTokenChallenge } from './fixtures/mcp-401';
import { CallbackServer } from './helpers/callback-server';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestOAuthProvider } from './helpers/oauth-provider';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('connected clients in a real browser (Debian Chromium)', () => {
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

  async function axeClean(page: Page): Promise<void> {
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  it('an AI client connects through consent, appears under Connected clients, is disconnected there, and its token is refused', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const project = await createProject(t.dataSource, org.organization.id, 'Support desk');
    const clientsUrl = `${t.baseUrl}/orgs/${org.organization.id}/clients`;
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    try {
      // Before anything is connected: the empty state, for the member and the admin.
      await signInBrowser(browser.context, t.baseUrl, org.member.session);
      await page.goto(clientsUrl);
      await page.getByText('You have not connected an AI client to this organisation yet.').waitFor();
      await axeClean(page);
      await browser.context.clearCookies();
      await signInBrowser(browser.context, t.baseUrl, org.admin.session);
      await page.goto(clientsUrl);
      await page.getByText('No AI client is connected to this organisation yet.').waitFor();
      await axeClean(page);
      await browser.context.clearCookies();

      // The SDK client discovers the server, registers, and sends the member to consent in Chromium.
      const serverUrl = new URL(`${t.baseUrl}/api/mcp`);
      const provider = new TestOAuthProvider({
        redirectUri: callback.redirectUri,
        clientName: 'Desk Assistant',
        state: 'desk-state',
        authorize: async (url) => {
          await page.goto(url.href);
          await page.waitForURL(/\/login\?next=/);
          await page.getByLabel('Email').fill(org.member.email);
          await page.getByLabel('Password').fill(org.member.password);
          await page.getByRole('button', { name: 'Sign in' }).click();
          await page.getByRole('heading', { name: 'Allow Desk Assistant to use Agent Gateway?' }).waitFor();
          await page.getByRole('radio', { name: 'Support desk' }).check();
          await page.getByRole('checkbox', { name: /tasks:delete/ }).uncheck();
          const received = callback.next();
          await page.getByRole('button', { name: 'Approve' }).click();
          await received;
          await page.waitForLoadState('load');
        },
      });
      expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
      const back = callback.received[callback.received.length - 1]!;
      expect(await auth(provider, { serverUrl, authorizationCode: back.searchParams.get('code')!, iss: back.searchParams.get('iss')! })).toBe('AUTHORIZED');
      const tokens = provider.tokens()!;
      const mcp = new Client({ name: 'desk-assistant', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
      const got = await mcp.callTool({ name: 'get_project', arguments: {} });
      expect(got.structuredContent).toMatchObject({ id: project.id, name: 'Support desk' });
      await mcp.close();

      // The member (signed in by the consent flow) sees it under Connected clients.
      await page.goto(clientsUrl);
      const row = page.getByRole('row', { name: /Desk Assistant/ });
      await row.waitFor();
      await row.getByText('answers at 127.0.0.1').waitFor();
      await row.getByRole('cell', { name: 'Support desk', exact: true }).waitFor();
      await row.getByRole('cell', { name: 'project:read, tasks:read, tasks:write', exact: true }).waitFor();
      await axeClean(page);

      // The admin sees it too, with who consented, and the client policy page (its confirmation included).
      await browser.context.clearCookies();
      await signInBrowser(browser.context, t.baseUrl, org.admin.session);
      await page.goto(clientsUrl);
      await page.getByRole('row', { name: /Desk Assistant/ }).getByRole('cell', { name: new RegExp(org.member.email) }).waitFor();
      await axeClean(page);
      await page.getByRole('link', { name: 'Change which clients may connect' }).click();
      await page.getByRole('heading', { name: 'Which AI clients may connect', level: 1 }).waitFor();
      await axeClean(page);
      await page.getByRole('radio', { name: /Only these clients/ }).check();
      await page.getByLabel(/Hosts of metadata-document clients/).fill('claude.ai\nhttps://not-a-host.example/x');
      await page.getByRole('button', { name: 'Save policy' }).click();
      await page.getByText('Line 2 is not a host name').waitFor();
      await axeClean(page);
      await page.getByLabel(/Hosts of metadata-document clients/).fill('claude.ai');
      await page.getByRole('checkbox', { name: /Allow registered clients/ }).uncheck();
      await page.getByRole('button', { name: 'Save policy' }).click();
      await page.getByRole('heading', { name: 'Save the client policy and end 1 connection?' }).waitFor();
      await page.getByText('Desk Assistant').waitFor();
      await axeClean(page);
      await page.getByRole('link', { name: 'Cancel' }).click();
      await page.getByRole('heading', { name: 'Which AI clients may connect', level: 1 }).waitFor();

      // The member disconnects it: asked first, then its tokens are refused at once.
      await browser.context.clearCookies();
      await signInBrowser(browser.context, t.baseUrl, org.member.session);
      await page.goto(clientsUrl);
      await page.getByRole('link', { name: 'Disconnect Desk Assistant from Support desk' }).click();
      await page.getByRole('heading', { name: 'Disconnect Desk Assistant from Support desk?' }).waitFor();
      await axeClean(page);
      await page.getByRole('button', { name: 'Disconnect' }).click();
      await page.getByRole('status').filter({ hasText: 'Client disconnected.' }).waitFor();
      expect(await page.getByRole('row', { name: /Desk Assistant/ }).count()).toBe(0);
      await axeClean(page);

      const refused = await fetch(serverUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tokens.access_token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(invalidTokenChallenge(t.baseUrl));
      const refresh = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: provider.clientInformation()!.client_id });
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe('invalid_grant');
    } finally {
      await page.close();
    }
  });
});
