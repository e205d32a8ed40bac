import type { Page } from 'playwright-core';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { authorizePath, pkcePair, registerClient, TEST_REDIRECT_URI } from './factories/oauth';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

const PHONE = { width: 390, height: 844 };

/** What a person on a phone would notice: the page scrolls sideways, or a table has lost its column headers. */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate((width) => {
    const doc = (globalThis as unknown as { document: any; getComputedStyle(e: unknown): { display: string; visibility: string } }).document;
    const view = globalThis as unknown as { getComputedStyle(e: unknown): { display: string; visibility: string } };
    const problems: string[] = [];
    const scrollWidth = doc.documentElement.scrollWidth as number;
    if (scrollWidth > width) {
      const wide = [...doc.querySelectorAll('body *')]
        .filter((e: any) => e.getBoundingClientRect().right > width + 0.5)
        .slice(0, 5)
        .map((e: any) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className ? `.${String(e.className).replace(/ /g, '.')}` : ''}`);
      problems.push(`the page is ${scrollWidth}px wide (${wide.join(', ')})`);
    }
    for (const table of doc.querySelectorAll('table')) {
      const headers = [...table.querySelectorAll('thead th')];
      if (headers.length === 0) problems.push('a table without column headers');
      for (const th of headers as any[]) {
        const box = th.getBoundingClientRect();
        const style = view.getComputedStyle(th);
        if (box.width === 0 || box.height === 0 || style.display === 'none' || style.visibility === 'hidden') {
          problems.push(`the column header "${th.textContent.trim()}" is hidden`);
        }
      }
      const first = headers[0] as any;
      if (first && (first.getBoundingClientRect().left < 0 || first.getBoundingClientRect().left > width)) problems.push('the first column header is off the screen');
    }
    return problems;
  }, PHONE.width);
}

describeBrowser('every page fits a phone (390×844, Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(() => close?.());

  it('the dashboard pages, sign-in, sign-up and consent scroll only down, never sideways, and keep their table headers', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const orgPath = `/orgs/${org.organization.id}`;
    const admin = org.admin.page;
    // Long names, as people write them.
    const project = await createProject(t.dataSource, org.organization.id, 'Quarterly infrastructure migration for the EMEA region');
    const second = await createProject(t.dataSource, org.organization.id, 'Customer-support-knowledge-base-without-any-spaces-at-all');

    await admin.get(`${orgPath}/service-keys`);
    const created = await admin.post(`${orgPath}/service-keys`, { name: 'Deployment pipeline of the payments platform (production)' });
    const keyId = /service-keys\/([0-9a-f-]{36})/.exec(created.headers.location)![1]!;
    await admin.get(`${orgPath}/service-keys/${keyId}`);
    expect((await admin.post(`${orgPath}/service-keys/${keyId}/tokens`, { projectId: project.id })).status).toBe(200);
    const keyPage = await admin.get(`${orgPath}/service-keys/${keyId}`);
    const tokenId = /tokens\/([0-9a-f-]{36})\/rotate/.exec(keyPage.text)![1]!;

    await admin.get(`${orgPath}/api-keys/new`);
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const apiKey = await admin.post(`${orgPath}/api-keys`, {
      name: 'Nightly export to the data warehouse',
      permissions: ['projects:read', 'projects:write', 'members:read', 'service_keys:read', 'audit:read'],
      expiresAt,
    });
    expect(apiKey.status).toBe(200);
    const apiKeyId = /api-keys\/([0-9a-f-]{36})\/revoke/.exec((await admin.get(`${orgPath}/api-keys`)).text)![1]!;
    const client = await insertConnectedClient(t.dataSource, {
      userId: org.member.id,
      organizationId: org.organization.id,
      projectId: project.id,
      clientName: 'A desktop assistant with a rather long application name',
      permissions: ['project:read', 'tasks:read', 'tasks:write', 'tasks:delete'],
    });
    await admin.get(`${orgPath}/members`);
    await admin.post(`${orgPath}/members/invitations`, { email: 'someone.with.a.long.address@subdomain.example.test', role: 'member' });
    const invitationId = /members\/invitations\/([0-9a-f-]{36})\/withdraw/.exec((await admin.get(`${orgPath}/members`)).text)![1]!;

    const dashboardPaths = [
      `${orgPath}/projects`,
      `${orgPath}/projects/${project.id}/rename`,
      `${orgPath}/projects/${project.id}/delete`,
      `${orgPath}/service-keys`,
      `${orgPath}/service-keys/${keyId}`,
      `${orgPath}/service-keys/${keyId}/revoke`,
      `${orgPath}/service-keys/${keyId}/tokens/${tokenId}/rotate`,
      `${orgPath}/service-keys/${keyId}/tokens/${tokenId}/revoke`,
      `${orgPath}/api-keys`,
      `${orgPath}/api-keys/new`,
      `${orgPath}/api-keys/${apiKeyId}/revoke`,
      `${orgPath}/clients`,
      `${orgPath}/clients/${client.grantId}/disconnect`,
      `${orgPath}/clients/policy`,
      `${orgPath}/members`,
      `${orgPath}/members/${org.member.id}/remove`,
      `${orgPath}/members/invitations/${invitationId}/withdraw`,
      `${orgPath}/audit`,
      '/account',
      `${orgPath}/no-such-page`,
    ];

    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.setViewportSize(PHONE);
    const found: Record<string, string[]> = {};
    const check = async (label: string) => {
      const problems = await layoutProblems(page);
      if (problems.length) found[label] = problems;
    };
    try {
      for (const path of ['/login', '/signup']) {
        expect((await page.goto(`${t.baseUrl}${path}`))!.status()).toBe(200);
        await check(path);
      }

      await signInBrowser(browser.context, t.baseUrl, org.admin.session);
      for (const path of dashboardPaths) {
        const res = await page.goto(`${t.baseUrl}${path}`);
        expect([path, res!.status()]).toEqual([path, path.endsWith('no-such-page') ? 404 : 200]);
        await check(path);
      }

      // The answers to forms: a derived token with its snippets, a new API key.
      await page.goto(`${t.baseUrl}${orgPath}/service-keys/${keyId}`);
      await page.getByLabel('Project').selectOption(second.id);
      await page.getByRole('button', { name: /Derive/ }).click();
      await page.getByRole('heading', { name: /Token for/, level: 1 }).waitFor();
      await check('derived token');
      await page.goto(`${t.baseUrl}${orgPath}/api-keys/new`);
      await page.getByLabel('Name').fill('Release script');
      await page.getByRole('checkbox', { name: /projects:read/ }).check();
      await page.getByRole('button', { name: 'Create API key' }).click();
      await page.getByRole('heading', { name: 'API key “Release script”', level: 1 }).waitFor();
      await check('new API key');

      // The consent page of an AI client.
      const registered = await registerClient(t.baseUrl, { client_name: 'An AI client with a long, descriptive name' });
      const { challenge } = pkcePair();
      const consent = await page.goto(
        `${t.baseUrl}${authorizePath({
          client_id: registered.client_id,
          redirect_uri: TEST_REDIRECT_URI,
          response_type: 'code',
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 'phone',
          resource: `${t.baseUrl}/api/mcp`,
        })}`,
      );
      expect(consent!.status()).toBe(200);
      await page.getByRole('button', { name: 'Approve' }).waitFor();
      await check('consent');
    } finally {
      await page.close();
    }
    expect(found).toEqual({});
  });
});
