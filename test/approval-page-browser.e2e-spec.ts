import { AGENT_PERMISSION_NAMES, CapabilityRegistry } from '@app/capabilities';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { Chromium, chromiumAvailable, launchChromium } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { connectClient } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('the approval page in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an admin opens the URL the agent got, sees the exact arguments with hidden characters shown, approves, and the retried call runs once', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const orgId = org.organization.id;
    const project = await createProject(t.dataSource, orgId, 'Website relaunch');
    await t.dataSource.query(
      `INSERT INTO organization_policies (organization_id, version, rules) VALUES ($1, 1, $2::jsonb)`,
      [orgId, JSON.stringify([{ id: 'look-first', description: 'New tasks need a look', tools: ['create_task'], effect: 'approve', approval: { approvers: 'admins' } }])],
    );
    const { accessToken } = await insertConnectedClient(t.dataSource, { userId: org.member.id, organizationId: orgId, projectId: project.id, permissions: [...AGENT_PERMISSION_NAMES] });
    const agent = await connectClient(t.baseUrl, '2025-06-18', { Authorization: `Bearer ${accessToken}` });
    const handle = jest.spyOn(t.app.get(CapabilityRegistry).toolsetFor(AGENT_PERMISSION_NAMES).byName.get('create_task')!.definition, 'handle');
    // A description that reads differently than it is: a right-to-left override, a zero-width space, and markup.
    const args = { title: 'Pay invoice', description: 'Open \u202Efdp.exe <script>alert(1)</script>\u200B' };
    const call = () => agent.client.callTool({ name: 'create_task', arguments: args });
    const held = await call();
    const url = /(http\S+\/approvals\/[0-9a-f-]{36})/.exec((held.content as { text: string }[])[0].text)![1];

    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1200, height: 900 });
    try {
      const response = await page.goto(url);
      expect(response!.status()).toBe(200);
      expect(response!.headers()['cache-control']).toContain('no-store');
      expect(response!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      await page.getByRole('heading', { name: 'An agent asks to run create_task', level: 1 }).waitFor();
      const shown = await page.locator('#approval-arguments').textContent();
      expect(shown).toContain('"title": "Pay invoice"');
      expect(shown).toContain('"description": "Open U+202Efdp.exe <script>alert(1)</script>U+200B"');
      expect(await page.locator('#approval-arguments mark').allTextContents()).toEqual(['U+202E', 'U+200B']);
      expect(await page.locator('script:not([src])').count()).toBe(0);
      expect(await page.locator('#approval-rule').textContent()).toBe('look-first');
      expect(await page.getByText('New tasks need a look').isVisible()).toBe(true);
      expect(await page.locator('#approval-risk').textContent()).toBe('write');
      expect(await page.getByText(org.member.email).isVisible()).toBe(true);
      expect(await page.getByText('None: this is its first.').isVisible()).toBe(true);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // A form post without the page's CSRF token decides nothing.
      const forged = await page.request.post(url, { form: { decision: 'approve' } });
      expect(forged.status()).toBe(403);

      await page.getByLabel('Reason (optional, kept in the audit trail)').fill('Checked with finance');
      await page.getByRole('button', { name: 'Approve this call' }).click();
      await page.getByText('Approved. The agent may now run this call once, within 10 minutes.').waitFor();
      expect(await page.locator('#approval-status').textContent()).toContain('Approved: the agent may run this call once');
      expect(await page.getByRole('button', { name: 'Approve this call' }).count()).toBe(0);
      expect(handle).not.toHaveBeenCalled();

      const ran = await call();
      expect(ran.isError).toBeFalsy();
      const again = await call();
      expect(again.isError).toBe(true);
      expect(handle).toHaveBeenCalledTimes(1);

      // The dashboard's list shows both: the consumed one and the new one waiting.
      await page.goto(`${t.baseUrl}/orgs/${orgId}/projects`);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Approvals' }).click();
      const rows = page.getByRole('table', { name: 'Approvals' }).getByRole('row');
      await rows.nth(2).waitFor();
      expect(await rows.nth(1).textContent()).toContain('pending (yours to decide)');
      expect(await rows.nth(2).textContent()).toContain('consumed');
      await rows.nth(1).getByRole('link').click();
      await page.getByRole('table', { name: "This credential's earlier approvals" }).waitFor();
      expect(await page.getByRole('table', { name: "This credential's earlier approvals" }).textContent()).toContain('consumed');

      // Sixteen minutes later, a decision asks for the password first.
      await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE user_id = $1`, [org.admin.id]);
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.getByText('A decision needs a sign-in within the last 15 minutes: enter your password').waitFor();
      await page.getByLabel('Your password').fill(org.admin.password);
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.getByText('Denied. The agent cannot run this call.').waitFor();
    } finally {
      await page.close();
      await agent.close();
    }
  });
});
