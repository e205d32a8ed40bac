import { Webhook } from 'standardwebhooks';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { startSinkReceiver, waitFor } from './helpers/sink-receiver';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * The audit sinks page (issue "Audit delivered to the SIEM without loss"): an admin adds an https
 * sink, copies its signing secret once, watches "delivered through N, behind by M", and deletes it
 * after signing in again. The receiver is plain HTTP on 127.0.0.1 under OUTBOUND_ALLOW_LOOPBACK.
 */
describeBrowser('the audit sinks page in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, browser, close } = await browserApp({ OUTBOUND_ALLOW_LOOPBACK: 'true' }));
  });
  afterAll(async () => {
    await close?.();
  });

  it('adds a sink with its secret shown once, shows its progress, refuses bad input at its field, and deletes it after a fresh sign-in', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const orgId = org.organization.id;
    const receiver = await startSinkReceiver();
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/orgs/${orgId}/audit`);
      await page.getByRole('link', { name: 'Audit sinks' }).click();
      await page.getByRole('heading', { name: 'Audit sinks', level: 1 }).waitFor();
      await page.getByText('No audit sinks yet.').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Bad input is refused at its field, and what was typed stays.
      await page.getByRole('link', { name: 'Add a sink' }).click();
      await page.getByLabel('Kind').selectOption('splunk_hec');
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add sink' }).click();
      await page.locator('#sink-token-error').waitFor();
      expect(await page.locator('#sink-token-error').textContent()).toBe('token is required for a splunk_hec sink (its HEC token)');
      expect(await page.getByLabel('HEC token (Splunk HEC only)').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByLabel('URL').inputValue()).toBe(receiver.url);
      await page.getByLabel('Kind').selectOption('https');
      await page.getByLabel('Start at record (optional)').fill('first');
      await page.getByRole('button', { name: 'Add sink' }).click();
      await page.locator('#sink-from-error').waitFor();
      expect(await page.getByLabel('Start at record (optional)').getAttribute('aria-invalid')).toBe('true');
      expect(await seriousAxeViolations(page)).toEqual([]);

      // The whole chain, from record 1: the signing secret is shown this once.
      await page.getByLabel('Start at record (optional)').fill('1');
      await page.getByRole('button', { name: 'Add sink' }).click();
      await page.getByRole('heading', { name: 'Audit sink added' }).waitFor();
      const secret = await page.locator('#sink-signing-secret').inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await waitFor(() => receiver.accepted.length > 0, 'a delivery');
      const delivered = receiver.accepted[0];
      expect(() => new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>, { jsonParse: false })).not.toThrow();

      // The list: where it stands, never the secret.
      const [{ seq }] = await t.dataSource.query(`SELECT seq FROM audit_chains WHERE chain = $1`, [orgId]);
      await page.goto(`${t.baseUrl}/orgs/${orgId}/audit/sinks`);
      const row = page.getByRole('row', { name: new RegExp(receiver.url.replace(/[.]/g, '\\.')) });
      await waitFor(async () => {
        await page.reload();
        return /Delivered through \d+, behind by 0/.test(await row.innerText());
      }, 'the sink current on the page');
      const through = Number(/Delivered through (\d+)/.exec(await row.innerText())![1]);
      expect(through).toBeGreaterThanOrEqual(Number(seq));
      expect(await row.innerText()).toContain('None');
      expect(await page.content()).not.toContain(secret);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Deleting needs a sign-in of the last 15 minutes (by the database's clock): the password first.
      await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE user_id = $1`, [org.admin.id]);
      // The URL as stored: normalised, with its path.
      await row.getByRole('link', { name: `Delete the sink ${receiver.url}/`, exact: true }).click();
      await page.getByRole('heading', { name: `Delete the audit sink ${receiver.url}/?` }).waitFor();
      await page.getByRole('button', { name: 'Delete sink' }).click();
      await page.getByText('Deleting a sink needs a sign-in within the last 15 minutes: enter your password').waitFor();
      await page.getByLabel(/Your password/).fill('not my password');
      await page.getByRole('button', { name: 'Delete sink' }).click();
      await page.getByText('That is not your password').waitFor();
      expect(await page.getByLabel(/Your password/).getAttribute('aria-invalid')).toBe('true');
      await page.getByLabel(/Your password/).fill(org.admin.password);
      await page.getByRole('button', { name: 'Delete sink' }).click();
      await page.getByText('Audit sink deleted. Nothing more is delivered to it.').waitFor();
      await page.getByText('No audit sinks yet.').waitFor();
      const left = await t.dataSource.query(`SELECT id FROM audit_sinks WHERE organization_id = $1`, [orgId]);
      expect(left).toEqual([]);
    } finally {
      await page.close();
      await receiver.close();
    }
  });
});
