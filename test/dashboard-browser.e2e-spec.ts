import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('the dashboard in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(() => close?.());

  it('opens the Projects page, creates the first project from the empty state, with no serious accessibility violation', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/`);
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/orgs/${org.organization.id}/projects`);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByLabel('Project name').fill('Website relaunch');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByRole('status').filter({ hasText: 'Project created.' }).waitFor();
      await page.getByRole('cell', { name: 'Website relaunch', exact: true }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByLabel('Project name').fill('');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByText('Enter project name').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
