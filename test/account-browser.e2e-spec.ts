import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { TestApp } from './helpers/test-app';
import { sessionFor, signupOverHttp } from './factories/rest';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('Your account in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(async () => {
    await close?.();
  });

  it('is reachable from the top bar, lists the organisations, and changes the password keeping this browser signed in', async () => {
    const person = await signupOverHttp(t, { name: 'Robin Account' });
    const elsewhere = await sessionFor(t, person.user.id);
    await signInBrowser(browser.context, t.baseUrl, await sessionFor(t, person.user.id));
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/orgs/${person.organization.id}/projects`);
      await page.getByRole('link', { name: 'Your account' }).click();
      await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
      await page.getByRole('table', { name: 'Your organisations' }).getByRole('cell', { name: 'Admin' }).waitFor();
      await page.getByRole('link', { name: person.organization.name }).waitFor();
      await page.getByText('This browser (the session you are using now)').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByLabel('Current password').fill('not my password at all');
      await page.getByLabel('New password').fill('a new browser password');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('That is not your current password.').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByLabel('Current password').fill(person.password);
      await page.getByLabel('New password').fill('a new browser password');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('status').filter({ hasText: 'Password changed: your other sessions have ended.' }).waitFor();
      // This browser stays signed in; another session of the person is refused.
      await page.goto(`${t.baseUrl}/orgs/${person.organization.id}/projects`);
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      const res = await fetch(`${t.baseUrl}/api/me`, { headers: { Authorization: `Bearer ${elsewhere}` } });
      expect(res.status).toBe(401);
    } finally {
      await page.close();
    }
  });
});
