import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';
import { sessionFor, signupOverHttp } from './factories/rest';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('An invitation link opened by someone who already has an account (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(async () => {
    await close?.();
  });
  afterEach(async () => {
    await browser.context.clearCookies();
  });

  const invite = async (orgId: string, adminSession: string, email: string, role: 'admin' | 'member' = 'member') =>
    (await request(t.baseUrl).post(`/api/organizations/${orgId}/members`).auth(adminSession, { type: 'bearer' }).send({ email, role }).expect(201)).body as {
      link: string;
    };
  const isMember = async (orgId: string, userId: string) =>
    (await t.dataSource.query(`SELECT 1 FROM memberships WHERE organization_id = $1 AND user_id = $2`, [orgId, userId])).length === 1;

  it('signed in: the link shows the organisation and role, and "Accept" joins as that account', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const person = await signupOverHttp(t, { name: 'Kim Existing' });
    const { link } = await invite(org.organization.id, org.admin.session, person.user.email, 'admin');
    await signInBrowser(browser.context, t.baseUrl, await sessionFor(t, person.user.id));
    const page = await browser.context.newPage();
    try {
      await page.goto(link);
      await page.getByRole('heading', { name: `Join ${org.organization.name}`, level: 1 }).waitFor();
      expect(await page.locator('#invitation-summary').innerText()).toBe(`You are invited to join ${org.organization.name} as admin.`);
      await page.getByText(`You are signed in as Kim Existing (${person.user.email}).`).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(await isMember(org.organization.id, person.user.id)).toBe(false);
      await page.getByRole('button', { name: `Accept and join ${org.organization.name}` }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/orgs/${org.organization.id}/projects`);
      await page.getByRole('status').filter({ hasText: 'You joined the organisation.' }).waitFor();
      expect(await isMember(org.organization.id, person.user.id)).toBe(true);
      // Used: opening it again says it no longer works.
      await page.goto(link);
      await page.getByRole('heading', { name: 'This invitation no longer works' }).waitFor();
    } finally {
      await page.close();
    }
  });

  it('signed in as another email: the page says so and offers no acceptance', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const someoneElse = await signupOverHttp(t, { name: 'Sam Other' });
    const invitedEmail = `invited-${randomUUID().slice(0, 8)}@example.test`;
    const { link } = await invite(org.organization.id, org.admin.session, invitedEmail);
    await signInBrowser(browser.context, t.baseUrl, await sessionFor(t, someoneElse.user.id));
    const page = await browser.context.newPage();
    try {
      await page.goto(link);
      await page.getByRole('heading', { name: 'This invitation is for another email' }).waitFor();
      await page.getByText(`It was sent to ${invitedEmail}, and you are signed in as ${someoneElse.user.email}.`).waitFor();
      expect(await page.getByRole('button', { name: /Accept/ }).count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(await isMember(org.organization.id, someoneElse.user.id)).toBe(false);
    } finally {
      await page.close();
    }
  });

  it('signed out: "Sign in" on the link keeps the invitation, and after signing in "Accept" joins', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const person = await signupOverHttp(t, { name: 'Lee Returning' });
    const { link } = await invite(org.organization.id, org.admin.session, person.user.email);
    const page = await browser.context.newPage();
    try {
      await page.goto(link);
      await page.getByText(`You are invited to join ${org.organization.name} as member.`).waitFor();
      expect(await page.getByLabel('Email').inputValue()).toBe(person.user.email);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.locator('#invitation-account').getByRole('link', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Sign in to Agent Gateway' }).waitFor();
      await page.getByLabel('Email').fill(person.user.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: `Join ${org.organization.name}`, level: 1 }).waitFor();
      expect(await isMember(org.organization.id, person.user.id)).toBe(false);
      await page.getByRole('button', { name: `Accept and join ${org.organization.name}` }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/orgs/${org.organization.id}/projects`);
      expect(await isMember(org.organization.id, person.user.id)).toBe(true);
    } finally {
      await page.close();
    }
  });

  it('signed out without an account: the link signs up and joins; the sign-in page leads back to it', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const email = `newcomer-${randomUUID().slice(0, 8)}@example.test`;
    const { link } = await invite(org.organization.id, org.admin.session, email);
    const page = await browser.context.newPage();
    try {
      await page.goto(link);
      await page.locator('#invitation-account').getByRole('link', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Sign in to Agent Gateway' }).waitFor();
      await page.getByRole('link', { name: 'Create one' }).click();
      await page.getByText(`You are invited to join ${org.organization.name} as member.`).waitFor();
      await page.getByLabel('Your name').fill('Nia Newcomer');
      await page.getByLabel('Password').fill(`A long passphrase ${randomUUID()}`);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/orgs/${org.organization.id}/projects`);
    } finally {
      await page.close();
    }
  });
});
