import request from 'supertest';
import { addMember, createOrganization, createProject, createUser } from './factories';
import { sessionFor } from './factories/rest';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { DashboardClient } from './helpers/dashboard';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('the organisation switcher and "Sign out everywhere" in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(() => close?.());

  it('switches between the two organisations of a person, each with the sections of their role there', async () => {
    const person = await createUser(t.dataSource, { name: 'Two Hats' });
    const acme = await createOrganization(t.dataSource, 'Acme');
    const globex = await createOrganization(t.dataSource, 'Globex');
    await addMember(t.dataSource, acme.id, person.id, 'admin');
    await addMember(t.dataSource, globex.id, person.id, 'member');
    await createProject(t.dataSource, acme.id, 'Acme website');
    await createProject(t.dataSource, globex.id, 'Globex billing');
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, await sessionFor(t, person.id));
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/`);
      await page.getByRole('cell', { name: 'Acme website', exact: true }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/orgs/${acme.id}/projects`);
      const sections = page.getByRole('navigation', { name: 'Sections' });
      expect(await sections.getByRole('link', { name: 'Service keys' }).count()).toBe(1);

      const switcher = page.getByText('Organisation: Acme');
      await switcher.click();
      const organizations = page.getByRole('list', { name: 'Organisations' });
      await organizations.waitFor();
      expect(await organizations.getByText('Acme (admin)').getAttribute('aria-current')).toBe('true');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await organizations.getByRole('link', { name: 'Globex (member)' }).click();

      await page.getByRole('cell', { name: 'Globex billing', exact: true }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/orgs/${globex.id}/projects`);
      expect(await page.getByText('Organisation: Globex').count()).toBe(1);
      expect(await page.getByRole('cell', { name: 'Acme website', exact: true }).count()).toBe(0);
      // A member there: no admin sections, no project form.
      expect(await sections.getByRole('link', { name: 'Service keys' }).count()).toBe(0);
      expect(await sections.getByRole('link', { name: 'Connected clients' }).count()).toBe(1);
      expect(await page.getByLabel('Project name').count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // And back, by keyboard.
      await page.getByText('Organisation: Globex').focus();
      await page.keyboard.press('Enter');
      await page.getByRole('link', { name: 'Acme (admin)' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('cell', { name: 'Acme website', exact: true }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/orgs/${acme.id}/projects`);
    } finally {
      await page.close();
    }
  });

  it('"Sign out everywhere" ends both sessions of the person on the server; signing in again works', async () => {
    const person = await createUser(t.dataSource, { name: 'Two Devices' });
    const organization = await createOrganization(t.dataSource);
    await addMember(t.dataSource, organization.id, person.id, 'admin');
    const laptop = await sessionFor(t, person.id);
    const phone = new DashboardClient(t.baseUrl, await sessionFor(t, person.id));
    const projects = `/orgs/${organization.id}/projects`;
    expect((await phone.get(projects)).status).toBe(200);

    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, laptop);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}${projects}`);
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.waitForURL(/\/login$/);
      await page.getByRole('heading', { name: 'Sign in to Agent Gateway' }).waitFor();
      expect((await browser.context.cookies(t.baseUrl)).some((c) => c.name === 'ag_session')).toBe(false);

      // The laptop's old cookie, put back, opens nothing: the server refuses the session itself.
      await signInBrowser(browser.context, t.baseUrl, laptop);
      await page.goto(`${t.baseUrl}${projects}`);
      await page.waitForURL(/\/login\?next=/);
      // The other device's session is refused too, on the pages and on REST.
      const refused = await phone.get(projects);
      expect(refused.status).toBe(303);
      expect(refused.headers.location).toBe(`/login?next=${encodeURIComponent(projects)}`);
      await request(t.baseUrl).get('/api/me').auth(laptop, { type: 'bearer' }).expect(401);
      await request(t.baseUrl).get('/api/me').auth(phone.session, { type: 'bearer' }).expect(401);

      // Signing in again gives a fresh session that works.
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(new RegExp(`${projects}$`));
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    } finally {
      await page.close();
    }
  });

  it('refuses "Sign out everywhere" posted without the CSRF token: every session keeps working', async () => {
    const person = await createUser(t.dataSource);
    const organization = await createOrganization(t.dataSource);
    await addMember(t.dataSource, organization.id, person.id, 'member');
    const one = new DashboardClient(t.baseUrl, await sessionFor(t, person.id));
    const two = new DashboardClient(t.baseUrl, await sessionFor(t, person.id));
    await one.get(`/orgs/${organization.id}/projects`);
    expect((await one.post('/sign-out-everywhere', {}, null)).status).toBe(403);
    expect((await one.post('/sign-out-everywhere', {}, 'x'.repeat(43))).status).toBe(403);
    expect((await one.get(`/orgs/${organization.id}/projects`)).status).toBe(200);
    expect((await two.get(`/orgs/${organization.id}/projects`)).status).toBe(200);
  });
});
