import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { TestApp } from './helpers/test-app';
import { CallbackServer } from './helpers/callback-server';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { createProject } from './factories';
import { authorizePath, createPersonWithProject, pkcePair, registerClient, tokenRequest } from './factories/oauth';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * Closes a page once its last navigation (here the redirect to the client's callback) has
 * loaded: Chromium can leave a `close()` issued mid-navigation unanswered.
 */
async function closeWhenLoaded(page: Page): Promise<void> {
  await page.waitForLoadState('load');
  await page.close();
}

describeBrowser('consent in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let callback: CallbackServer;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' }));
    callback = await CallbackServer.start();
  });
  afterAll(async () => {
    await callback?.close();
    await close?.();
  });

  async function start() {
    const person = await createPersonWithProject(t);
    const second = await createProject(t.dataSource, person.organization.id, 'Second project');
    const client = await registerClient(t.baseUrl, { client_name: 'Browser Test Client', redirect_uris: [callback.redirectUri] });
    const { verifier, challenge } = pkcePair();
    const url = `${t.baseUrl}${authorizePath({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: callback.redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'browser-state',
      scope: 'project:read tasks:read tasks:write tasks:delete offline_access',
      resource: `${t.baseUrl}/api/mcp`,
    })}`;
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.goto(url);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(person.user.email);
    await page.getByLabel('Password').fill(person.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/api\/agent\/oauth\/authorize\?/);
    await page.getByRole('heading', { name: 'Allow Browser Test Client to use Agent Gateway?' }).waitFor();
    return { person, second, client, verifier, page };
  }

  it('logs in, picks a project, unticks a permission, approves: the token lists only the granted tools', async () => {
    const { second, client, verifier, page } = await start();
    await page.getByRole('radio', { name: 'Second project' }).check();
    const deletePermission = page.getByRole('checkbox', { name: /tasks:delete/ });
    expect(await deletePermission.isChecked()).toBe(true);
    await deletePermission.uncheck();
    const received = callback.next();
    await page.getByRole('button', { name: 'Approve' }).click();
    const url = await received;
    await closeWhenLoaded(page);
    expect(url.searchParams.get('state')).toBe('browser-state');
    expect(url.searchParams.get('iss')).toBe(t.baseUrl);
    const tokens = await tokenRequest(t.baseUrl, {
      grant_type: 'authorization_code',
      code: url.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: callback.redirectUri,
      client_id: client.client_id,
      resource: `${t.baseUrl}/api/mcp`,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('project:read tasks:read tasks:write');

    const mcp = new Client({ name: 'browser-e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${tokens.body.access_token as string}` } },
      }),
    );
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['create_task', 'get_project', 'get_task', 'list_tasks', 'update_task']);
      const project = await mcp.callTool({ name: 'get_project', arguments: {} });
      expect(project.structuredContent).toMatchObject({ id: second.id, permissions: ['project:read', 'tasks:read', 'tasks:write'] });
    } finally {
      await mcp.close();
    }
  });

  it('denies: the client receives access_denied', async () => {
    const { page } = await start();
    const received = callback.next();
    await page.getByRole('button', { name: 'Deny' }).click();
    const url = await received;
    await closeWhenLoaded(page);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The person denied the request',
      state: 'browser-state',
      iss: t.baseUrl,
    });
  });
});
