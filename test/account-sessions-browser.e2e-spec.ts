import request from 'supertest';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations } from './helpers/dashboard-browser';
import { TestApp } from './helpers/test-app';
import { signupOverHttp } from './factories/rest';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('Your sessions in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(async () => {
    await close?.();
  });

  it('lists the sign-in page session as this browser beside another sign-in, and signs the other one out', async () => {
    const person = await signupOverHttp(t, { name: 'Sam Sessions' });
    const other = await request(t.baseUrl).post('/api/auth/login').set('User-Agent', 'OtherClient/9.9').send({ email: person.user.email, password: person.password }).expect(200);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/login?next=%2Faccount`);
      await page.getByLabel('Email').fill(person.user.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
      const table = page.getByRole('table', { name: 'Your sessions' });
      const mine = table.getByRole('row').filter({ hasText: 'This browser (the session you are using now)' });
      expect(await mine.count()).toBe(1);
      expect(await mine.textContent()).toContain('Chrom');
      const theirs = table.getByRole('row').filter({ hasText: 'OtherClient/9.9' });
      expect(await theirs.count()).toBe(1);
      expect(await seriousAxeViolations(page)).toEqual([]);

      await theirs.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('status').filter({ hasText: 'That session is signed out.' }).waitFor();
      expect(await table.getByRole('row').filter({ hasText: 'OtherClient/9.9' }).count()).toBe(0);
      expect(await table.getByRole('row').filter({ hasText: 'This browser (the session you are using now)' }).count()).toBe(1);
      await request(t.baseUrl).get('/api/me').auth(other.body.accessToken as string, { type: 'bearer' }).expect(401);
    } finally {
      await page.close();
    }
  });
});
