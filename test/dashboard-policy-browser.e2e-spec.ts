import { createProject } from './factories';
import { Chromium, chromiumAvailable, launchChromium } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { startTestApp, TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('the Policy page in a real browser (Debian Chromium)', () => {
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

  it('an admin writes a rule, sees a condition error at its position, saves, tries a call, and signs in again after 15 minutes', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const orgId = org.organization.id;
    const project = await createProject(t.dataSource, orgId, 'Website relaunch');
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1200, height: 900 });
    try {
      await page.goto(`${t.baseUrl}/orgs/${orgId}/projects`);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Policy' }).click();
      await page.getByRole('heading', { name: "Policy for agents' calls", level: 1 }).waitFor();
      expect(await page.getByText('No rule yet: every call is allowed.').isVisible()).toBe(true);

      const rule = (when: string) =>
        JSON.stringify([{ id: 'no-closing', description: 'No agent closes tasks here', projects: [project.id], tools: ['update_task'], when, effect: 'deny' }], null, 2);
      await page.getByLabel('Rules (JSON, in order)').fill(rule('args.status == '));
      await page.getByRole('button', { name: 'Save rules' }).click();
      const alert = page.locator('#policy-rules-error');
      await alert.waitFor();
      expect(await alert.locator('p').textContent()).toBe('Invalid policy: rule "no-closing" (rules[0]), when at position 15: Unexpected token: EOF');
      // The end of the text is marked as a space after it.
      expect(await alert.locator('pre').textContent()).toBe('args.status ==  ');
      expect(await alert.locator('mark').textContent()).toBe(' ');
      expect(await page.getByLabel('Rules (JSON, in order)').getAttribute('aria-invalid')).toBe('true');
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByLabel('Rules (JSON, in order)').fill(rule('args.status.matches(args.title)'));
      await page.getByRole('button', { name: 'Save rules' }).click();
      await alert.waitFor();
      expect(await alert.locator('p').textContent()).toContain('at position 20: matches takes a string literal pattern only');
      expect(await alert.locator('mark').textContent()).toBe('a');

      await page.getByLabel('Rules (JSON, in order)').fill(rule('args.status == "done"'));
      await page.getByRole('button', { name: 'Save rules' }).click();
      await page.getByText('Policy saved. Every instance applies it from the next call.').waitFor();
      const row = page.getByRole('table', { name: 'Rules, in the order they are tried' }).getByRole('row').nth(1);
      expect(await row.textContent()).toContain('no-closing');
      expect(await row.textContent()).toContain('args.status == "done"');

      await page.getByLabel('Project').selectOption(project.id);
      await page.getByLabel('Tool').selectOption('update_task');
      await page.getByLabel('Arguments (JSON)').fill('{"id": "t1", "status": "done"}');
      await page.getByRole('button', { name: 'Try it' }).click();
      await page.locator('#policy-tried').waitFor();
      expect(await page.locator('#policy-tried').textContent()).toBe('Effect: deny (rule no-closing).');
      await page.getByLabel('Arguments (JSON)').fill('{"id": "t1", "status": "todo"}');
      await page.getByRole('button', { name: 'Try it' }).click();
      await page.getByText('Effect: allow (no rule matched).').waitFor();

      // Sixteen minutes later (by the database's clock): a change asks for the password first.
      await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE user_id = $1`, [org.admin.id]);
      await page.getByLabel('Rules (JSON, in order)').fill('[]');
      await page.getByRole('button', { name: 'Save rules' }).click();
      await page.getByText('Changing the policy needs a sign-in within the last 15 minutes: enter your password').waitFor();
      await page.getByLabel('Your password').fill('not my password');
      await page.getByRole('button', { name: 'Save rules' }).click();
      await page.getByText('That is not your password').waitFor();
      await page.getByLabel('Your password').fill(org.admin.password);
      await page.getByRole('button', { name: 'Save rules' }).click();
      await page.getByText('Policy saved. Every instance applies it from the next call.').waitFor();
      await page.getByText('No rules.').waitFor();
      const [{ version }] = await t.dataSource.query('SELECT version FROM organization_policies WHERE organization_id = $1', [orgId]);
      expect(version).toBe(2);
    } finally {
      await page.close();
    }
  });
});
