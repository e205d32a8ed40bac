import request from 'supertest';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** An organisation client for ID-JAGs, made on the Connected clients page (no session JWT in curl). */
describeBrowser('making an organisation client on the Connected clients page (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(async () => {
    await close?.();
  });

  it('makes one, shows its client_id and secret once, and the secret authenticates it at the token endpoint', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    let clientId: string;
    let secret: string;
    try {
      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/clients`);
      await page.getByRole('link', { name: 'New organisation client' }).click();
      await page.getByRole('button', { name: 'Make organisation client' }).click();
      // An empty name is refused on the page, naming the field.
      await page.locator('#organization-client-name-error').waitFor();
      expect(await page.locator('#organization-client-name-error').innerText()).toBe('Enter name');
      expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
      await page.getByLabel('Name').fill('Claude for Acme');
      await page.getByRole('button', { name: 'Make organisation client' }).click();
      await page.getByRole('heading', { name: 'Organisation client “Claude for Acme”' }).waitFor();
      clientId = await page.locator('#organization-client-id').inputValue();
      secret = await page.locator('#organization-client-secret').inputValue();
      expect(secret).toMatch(/^dgs_/);
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
    const [row] = await t.dataSource.query(`SELECT client_name, grant_types FROM oauth_clients WHERE client_id = $1`, [clientId]);
    expect(row).toMatchObject({ client_name: 'Claude for Acme' });
    expect(row.grant_types).toEqual([JWT_BEARER]);
    const audited = await t.dataSource.query(`SELECT action, actor_id FROM audit_events WHERE organization_id = $1 AND target_id = $2`, [org.organization.id, clientId]);
    expect(audited).toEqual([{ action: 'oauth_client.registered', actor_id: org.admin.id }]);
    // The secret authenticates the client: a bad assertion is the grant's problem, not the client's.
    const token = (auth: string) =>
      request(t.baseUrl).post('/api/agent/oauth/token').set('Authorization', `Basic ${Buffer.from(auth).toString('base64')}`).type('form').send({ grant_type: JWT_BEARER, assertion: 'not-a-jwt' });
    const good = await token(`${clientId}:${secret}`);
    expect([good.status, good.body.error]).toEqual([400, 'invalid_grant']);
    const bad = await token(`${clientId}:dgs_wrong`);
    expect([bad.status, bad.body.error]).toEqual([401, 'invalid_client']);
  });

  it('lists the organisation clients with their maker; a new secret replaces the old one; delete asks, then the client is gone', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const made = await request(t.baseUrl).post(`/api/organizations/${org.organization.id}/oauth-clients`).auth(org.admin.session, { type: 'bearer' }).send({ clientName: 'Copilot for Acme' }).expect(201);
    const clientId = made.body.clientId as string;
    const token = (secret: string) =>
      request(t.baseUrl).post('/api/agent/oauth/token').set('Authorization', `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`).type('form').send({ grant_type: JWT_BEARER, assertion: 'not-a-jwt' });
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/clients`);
      const row = page.getByRole('row', { name: /Copilot for Acme/ });
      await row.waitFor();
      expect(await row.innerText()).toContain(clientId);
      expect(await row.innerText()).toContain(org.admin.name);
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByRole('button', { name: 'New secret for Copilot for Acme' }).click();
      await page.getByRole('heading', { name: 'New secret for “Copilot for Acme”' }).waitFor();
      const secret = await page.locator('#organization-client-secret').inputValue();
      expect(secret).toMatch(/^dgs_/);
      expect(secret).not.toBe(made.body.clientSecret);
      expect((await token(made.body.clientSecret)).status).toBe(401);
      expect((await token(secret)).body.error).toBe('invalid_grant');

      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/clients`);
      await page.getByRole('link', { name: 'Delete Copilot for Acme' }).click();
      await page.getByRole('heading', { name: 'Delete the organisation client “Copilot for Acme”?' }).waitFor();
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByText('Organisation client deleted. Its tokens are refused from now on.').waitFor();
      expect(await page.getByRole('row', { name: /Copilot for Acme/ }).count()).toBe(0);
      expect((await token(secret)).status).toBe(401);
    } finally {
      await page.close();
    }
    expect(await t.dataSource.query('SELECT 1 FROM oauth_clients WHERE client_id = $1', [clientId])).toEqual([]);
    const events = await t.dataSource.query(`SELECT action FROM audit_events WHERE organization_id = $1 AND target_id = $2 ORDER BY created_at, id`, [org.organization.id, clientId]);
    expect(events.map((e: { action: string }) => e.action)).toEqual(['oauth_client.registered', 'oauth_client.secret_rotated', 'oauth_client.deleted']);
  });

  it('is for admins: a member has no link and cannot open the form', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const clients = await org.member.page.get(`/orgs/${org.organization.id}/clients`);
    expect(clients.text).not.toContain('New organisation client');
    expect((await org.member.page.get(`/orgs/${org.organization.id}/clients/organization-clients/new`)).status).toBe(403);
  });
});
