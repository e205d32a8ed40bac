import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable, launchChromium } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/** The "What" column of the audit table, top to bottom. */
async function whatColumn(page: Page): Promise<string[]> {
  return page.locator('tbody tr td:nth-child(3)').allInnerTexts();
}

describeBrowser('Members and the audit log in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let admin: Chromium;
  let invitee: Chromium;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, browser: admin, close } = await browserApp());
    invitee = await launchChromium();
  });
  afterAll(async () => {
    await invitee?.close();
    await close?.();
  });

  it('invites a person who signs up through the link, changes their role, issues a reset link, removes them; the log shows it all', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const base = `${t.baseUrl}/orgs/${org.organization.id}`;
    await signInBrowser(admin.context, t.baseUrl, org.admin.session);
    const page = await admin.context.newPage();
    try {
      // An empty audit log first, then Members with no pending invitation.
      await page.goto(`${base}/audit`);
      await page.getByText('Nothing has happened in this organisation yet.').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Members' }).click();
      await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
      await page.getByText('No pending invitations.').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Invite: the link is shown once, in a read-only field.
      await page.getByLabel('Email').fill('not an email');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.getByText('Enter an email address like name@example.com').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      const email = `grace-${randomUUID().slice(0, 8)}@example.test`;
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Member' });
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.getByRole('heading', { name: 'Invitation created' }).waitFor();
      const link = await page.getByLabel('Invitation link').inputValue();
      expect(link).toMatch(/\/signup\?invitation=dgi_/);
      expect(page.url()).not.toContain('dgi_');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'Back to members' }).click();
      await page.getByRole('cell', { name: email, exact: true }).waitFor();
      expect(await page.content()).not.toContain(new URL(link).searchParams.get('invitation')!);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.goto(`${base}/members/invitations`);
      await page.getByRole('heading', { name: 'Pending invitations', level: 1 }).waitFor();
      await page.getByRole('button', { name: `Withdraw the invitation of ${email}` }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      // The invited person, in a browser of their own, signs up through the link.
      const theirs = await invitee.context.newPage();
      try {
        await theirs.goto(link);
        await theirs.getByText(`You are invited to join ${org.organization.name} as member.`).waitFor();
        await theirs.getByLabel('Your name').fill('Grace Hopper');
        await theirs.getByLabel('Email').fill(email);
        await theirs.getByLabel('Password').fill(`A long passphrase ${randomUUID()}`);
        await theirs.getByRole('button', { name: 'Create account' }).click();
        // Sign-up ends on the dashboard, in the organisation they joined.
        await theirs.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
        expect(new URL(theirs.url()).pathname).toBe(`/orgs/${org.organization.id}/projects`);
      } finally {
        await theirs.close();
      }

      // They are a member now, and the invitation is no longer pending.
      await page.reload();
      await page.getByText('No pending invitations.').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'Back to members' }).click();
      await page.getByRole('cell', { name: 'Grace Hopper', exact: true }).waitFor();
      await page.getByText('No pending invitations.').waitFor();
      await page.getByLabel('Role of Grace Hopper', { exact: true }).selectOption({ label: 'Admin' });
      await page.getByRole('button', { name: 'Change the role of Grace Hopper' }).click();
      await page.getByRole('status').filter({ hasText: 'Role changed.' }).waitFor();
      expect(await page.getByLabel('Role of Grace Hopper', { exact: true }).inputValue()).toBe('admin');
      expect(await seriousAxeViolations(page)).toEqual([]);

      // A reset link, shown once.
      await page.getByRole('button', { name: 'Reset link for Grace Hopper' }).click();
      await page.getByRole('heading', { name: 'Password-reset link for Grace Hopper' }).waitFor();
      expect(await page.getByLabel('Password-reset link', { exact: true }).inputValue()).toMatch(/\/reset-password\?token=dgp_/);
      expect(page.url()).not.toContain('dgp_');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'Back to members' }).click();

      // Removal says what ends, then ends it.
      await page.getByRole('link', { name: 'Remove Grace Hopper' }).click();
      await page.getByRole('heading', { name: `Remove Grace Hopper from ${org.organization.name}?` }).waitFor();
      await page.getByText('their signed-in sessions no longer open its pages or its API').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Remove Grace Hopper' }).click();
      await page.getByRole('status').filter({ hasText: 'Member removed' }).waitFor();
      expect(await page.getByRole('cell', { name: 'Grace Hopper', exact: true }).count()).toBe(0);

      // The audit log has each step, with who did it.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      expect(await whatColumn(page)).toEqual([
        'Removed Grace Hopper',
        'Issued a password-reset link for Grace Hopper',
        'Changed the role of Grace Hopper from member to admin',
        expect.stringMatching(/^(Grace Hopper joined as member, signing up from an invitation|Accepted an invitation as member)$/),
        expect.stringMatching(/^(Grace Hopper joined as member, signing up from an invitation|Accepted an invitation as member)$/),
        `Invited ${email} as member`,
      ]);
      expect(await page.locator('tbody tr td:nth-child(2)').first().innerText()).toContain(org.admin.email);
      expect(await page.locator('tbody tr td:nth-child(4)').first().innerText()).toMatch(/Chrome \d+ on Linux/);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Filter by kind, then by person.
      await page.getByLabel('Kind of event').selectOption({ label: 'Role changed' });
      await page.getByRole('button', { name: 'Show events' }).click();
      await page.waitForURL(/action=member.role_changed/);
      expect(await whatColumn(page)).toEqual(['Changed the role of Grace Hopper from member to admin']);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'Clear the filters' }).first().click();
      await page.getByLabel('Person', { exact: true }).selectOption({ label: `Test User (${org.member.email})` });
      await page.getByRole('button', { name: 'Show events' }).click();
      await page.getByText('No events match these filters.').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Pages: more events than one page holds, the filter kept across pages.
      for (let i = 0; i < 51; i++) {
        await request(t.baseUrl).post(`/api/organizations/${org.organization.id}/projects`).auth(org.admin.session, { type: 'bearer' }).send({ name: `Bulk ${i}` }).expect(201);
      }
      await page.goto(`${base}/audit`);
      await page.getByLabel('Kind of event').selectOption({ label: 'Project created' });
      await page.getByRole('button', { name: 'Show events' }).click();
      await page.waitForURL(/action=project.created/);
      expect(await whatColumn(page)).toHaveLength(50);
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.waitForURL(/cursor=/);
      expect(new URL(page.url()).searchParams.get('action')).toBe('project.created');
      expect(await page.getByLabel('Kind of event').inputValue()).toBe('project.created');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'First page' }).click();
      await page.waitForURL((url) => !url.search.includes('cursor='));
      expect(new URL(page.url()).searchParams.get('action')).toBe('project.created');
    } finally {
      await page.close();
    }
  });
});
