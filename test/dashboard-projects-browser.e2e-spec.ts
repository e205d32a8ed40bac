import { createProject } from './factories';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('the Projects section in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(() => close?.());

  it('renames and deletes a project by keyboard and mouse, with no serious accessibility violation on any page', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await createProject(t.dataSource, org.organization.id, 'Website');
    await createProject(t.dataSource, org.organization.id, 'Billing');
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/projects`);
      await page.getByRole('cell', { name: 'Website', exact: true }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByRole('link', { name: 'Rename Website' }).click();
      await page.getByRole('heading', { name: 'Rename project “Website”' }).waitFor();
      expect(await page.getByLabel('Project name').inputValue()).toBe('Website');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByLabel('Project name').fill('');
      await page.getByRole('button', { name: 'Rename project' }).click();
      await page.getByText('Enter project name').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByLabel('Project name').fill('Website relaunch');
      await page.getByLabel('Project name').press('Enter');
      await page.getByRole('status').filter({ hasText: 'Project renamed.' }).waitFor();
      await page.getByRole('cell', { name: 'Website relaunch', exact: true }).waitFor();

      await page.getByRole('link', { name: 'Delete Billing' }).click();
      await page.getByRole('heading', { name: 'Delete project “Billing”?' }).waitFor();
      expect(await page.locator('#project-deletion-ends').innerText()).toContain('0 derived tokens');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'Cancel, keep the project' }).click();
      await page.getByRole('cell', { name: 'Billing', exact: true }).waitFor();
      await page.getByRole('link', { name: 'Delete Billing' }).click();
      await page.getByRole('button', { name: 'Delete project' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: 'Project deleted.' }).waitFor();
      expect(await page.getByRole('cell', { name: 'Billing', exact: true }).count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("shows a member the list without actions, and the empty state says who creates projects", async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.member.session);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/projects`);
      await page.getByText('An administrator of this organisation creates them').waitFor();
      expect(await page.getByLabel('Project name').count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await createProject(t.dataSource, org.organization.id, 'Shared');
      await page.reload();
      await page.getByRole('cell', { name: 'Shared', exact: true }).waitFor();
      expect(await page.getByRole('link', { name: /^(Rename|Delete) / }).count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
