import request from 'supertest';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * SCIM tokens in the dashboard: an admin who signs in only through the identity provider makes,
 * reads and revokes them without a session JWT in curl (issue "Enterprise setup a person can finish").
 */
describeBrowser('SCIM tokens page in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(async () => {
    await close?.();
  });

  const scimUsers = (token: string) => request(t.baseUrl).get('/scim/v2/Users').set('Authorization', `Bearer ${token}`);

  it('makes a token with an expiry, lists its maker, last use and expiry, and revokes it; an expired token is refused', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const base = `${t.baseUrl}/orgs/${org.organization.id}/scim-tokens`;
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    try {
      await page.goto(base);
      await page.getByText('No SCIM tokens yet.').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Make one, ending in 30 days.
      await page.getByRole('link', { name: 'New SCIM token' }).click();
      const day = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
      await page.getByLabel('Name').fill('Okta');
      await page.getByLabel('Expires on (optional)').fill(day);
      await page.getByRole('button', { name: 'Make SCIM token' }).click();
      await page.getByRole('heading', { name: 'SCIM token “Okta”' }).waitFor();
      const token = await page.locator('#scim-token-secret').inputValue();
      expect(token).toMatch(/^scim_[0-9A-Za-z]{49}$/);
      expect(await page.locator('#scim-base-url').inputValue()).toBe(`${t.baseUrl}/scim/v2`);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await scimUsers(token).expect(200);

      // The list: maker, expiry and last use; never the secret.
      await page.goto(base);
      const row = page.getByRole('row', { name: /Okta/ });
      await row.waitFor();
      const text = (await row.innerText()).replace(/\s+/g, ' ');
      expect(text).toContain(`scim_…${token.slice(-4)}`);
      expect(text).toContain(`by ${org.admin.name}`);
      expect(text).not.toContain('Never');
      expect(await page.content()).not.toContain(token);
      const [stored] = await t.dataSource.query(`SELECT expires_at, last_used_at FROM scim_tokens WHERE organization_id = $1`, [org.organization.id]);
      expect(new Date(stored.expires_at).toISOString()).toBe(`${day}T00:00:00.000Z`);
      expect(stored.last_used_at).not.toBeNull();

      // An expiry in the past is refused on the page, naming the field.
      await page.goto(`${base}/new`);
      await page.getByLabel('Name').fill('Old');
      await page.getByLabel('Expires on (optional)').fill('2020-01-01');
      await page.getByRole('button', { name: 'Make SCIM token' }).click();
      await page.getByText('Choose a day after today, or leave the expiry empty').waitFor();

      // Revoke: asked first, then refused at once.
      await page.goto(base);
      await page.getByRole('link', { name: 'Revoke Okta' }).click();
      await page.getByRole('heading', { name: 'Revoke the SCIM token “Okta”?' }).waitFor();
      await page.getByRole('button', { name: 'Revoke SCIM token' }).click();
      await page.getByText('SCIM token revoked.').waitFor();
      await page.getByText('No SCIM tokens yet.').waitFor();
      await scimUsers(token).expect(401);
    } finally {
      await page.close();
    }

    // A token past its expiry is refused, and listed as expired.
    const made = await request(t.baseUrl)
      .post(`/api/organizations/${org.organization.id}/scim-tokens`)
      .set('Authorization', `Bearer ${org.admin.session}`)
      .send({ name: 'Entra', expiresAt: new Date(Date.now() + 86_400_000).toISOString() })
      .expect(201);
    await scimUsers(made.body.token).expect(200);
    await t.dataSource.query(`UPDATE scim_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1`, [made.body.id]);
    await scimUsers(made.body.token).expect(401);
    const listed = await org.admin.page.get(`/orgs/${org.organization.id}/scim-tokens`);
    expect(listed.text).toMatch(/<td>Expired /);
    const past = await request(t.baseUrl)
      .post(`/api/organizations/${org.organization.id}/scim-tokens`)
      .set('Authorization', `Bearer ${org.admin.session}`)
      .send({ name: 'Past', expiresAt: '2020-01-01T00:00:00Z' })
      .expect(400);
    expect(JSON.stringify(past.body)).toContain('expiresAt');
  });

  it('is for admins: a member sees no SCIM tokens section and cannot open it', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const projects = await org.member.page.get(`/orgs/${org.organization.id}/projects`);
    expect(projects.text).not.toContain('SCIM tokens');
    const refused = await org.member.page.get(`/orgs/${org.organization.id}/scim-tokens`);
    expect(refused.status).toBe(403);
  });
});
