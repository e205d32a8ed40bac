import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/** What a new user met on the pages (issue "Enterprise setup a person can finish", polish). */
describeBrowser('pages a new user meets, in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(async () => {
    await close?.();
  });

  it('every page links an icon that loads; /favicon.ico answers it too, never a 404', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    try {
      for (const path of ['/login', `/orgs/${org.organization.id}/projects`]) {
        if (path.startsWith('/orgs')) await signInBrowser(browser.context, t.baseUrl, org.admin.session);
        await page.goto(`${t.baseUrl}${path}`);
        const icon = await page.evaluate(async () => {
          const scope = globalThis as unknown as { document: { querySelector(s: string): { href: string } | null }; Image: new () => { src: string; naturalWidth: number; decode(): Promise<void> } };
          const link = scope.document.querySelector('link[rel="icon"]');
          if (!link) return null;
          const img = new scope.Image();
          img.src = link.href;
          await img.decode();
          return { href: link.href, width: img.naturalWidth };
        });
        expect(icon).toEqual({ href: `${t.baseUrl}/favicon.svg`, width: expect.any(Number) });
        expect(icon!.width).toBeGreaterThan(0);
      }
      expect(failed).toEqual([]);
    } finally {
      await page.close();
    }
    const ico = await request(t.baseUrl).get('/favicon.ico').expect(200);
    expect(ico.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(String(ico.body ?? ico.text)).toContain('<svg');
  });

  it('an organisation the person is not in: "Organisation not found", saying why and what to do', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.member.session);
    const page = await browser.context.newPage();
    try {
      const answer = await page.goto(`${t.baseUrl}/orgs/${randomUUID()}/projects`);
      expect(answer?.status()).toBe(404);
      await page.getByRole('heading', { name: 'Organisation not found' }).waitFor();
      await page.getByText('This organisation does not exist, or you are not one of its members.').waitFor();
      expect(await page.content()).not.toContain('Organization not found');
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
    // REST keeps its answer.
    const rest = await request(t.baseUrl).get(`/api/organizations/${randomUUID()}/projects`).set('Authorization', `Bearer ${org.member.session}`).expect(404);
    expect(rest.body.message).toBe('Organization not found');
  });

  it('search fields are wide enough to read a project name of 40 characters', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await browser.context.clearCookies();
    await signInBrowser(browser.context, t.baseUrl, org.admin.session);
    const page = await browser.context.newPage();
    try {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${t.baseUrl}/orgs/${org.organization.id}/audit`);
      const field = page.locator('#audit-person-query');
      await field.fill('Customer onboarding for the Nordic region');
      // The text's own width in the field's font, against the room the field gives it.
      const fits = await field.evaluate((input) => {
        const el = input as unknown as { value: string; clientWidth: number; scrollWidth: number };
        return { clientWidth: el.clientWidth, scrollWidth: el.scrollWidth };
      });
      expect(fits.scrollWidth).toBeLessThanOrEqual(fits.clientWidth);
    } finally {
      await page.close();
    }
  });
});
