import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { createUser } from './factories';
import { PAGE_CSP } from './fixtures/html-pages';
import { browserApp } from './helpers/browser-app';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { startTestApp, TestApp } from './helpers/test-app';

function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no csrf field in the page');
  return match[1]!;
}

function expectPageHeaders(res: request.Response) {
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res.headers['content-security-policy']).toMatch(PAGE_CSP);
  expect(res.headers['content-security-policy']).not.toContain('script-src');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
}

function sessionCookieOf(res: request.Response): string | undefined {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return cookies.find((c) => c.startsWith('ag_session='));
}

function form(fields: Record<string, string>) {
  return new URLSearchParams(fields).toString();
}

describe('the HTML sign-up page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('serves an accessible form with a CSRF token and the page security headers', async () => {
    const res = await request(t.baseUrl).get('/signup?next=/api/agent/oauth/authorize%3Fclient_id%3Dabc').expect(200);
    expectPageHeaders(res);
    const html = res.text;
    expect(html).toContain('<html lang="en">');
    for (const id of ['name', 'email', 'password', 'organizationName']) {
      expect(html).toContain(`<label for="${id}">`);
      expect(html).toMatch(new RegExp(`<input id="${id}" name="${id}"[^>]* required`));
    }
    expect(html).toContain('autocomplete="new-password"');
    expect(html).toContain('name="next" value="/api/agent/oauth/authorize?client_id=abc"');
    expect(csrfOf(html)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('ag_signup_csrf='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\/signup/);
  });

  it('looks like the sign-in page: the same shell and stylesheet (one CSP hash)', async () => {
    const signup = await request(t.baseUrl).get('/signup').expect(200);
    const login = await request(t.baseUrl).get('/login').expect(200);
    expect(signup.headers['content-security-policy']).toBe(login.headers['content-security-policy']);
    const styleOf = (html: string) => /<style>([^<]+)<\/style>/.exec(html)?.[1];
    expect(styleOf(signup.text)).toBeDefined();
    expect(styleOf(signup.text)).toBe(styleOf(login.text));
    expect(signup.text).toContain('<div class="card">');
  });

  it('creates the account, sets the HttpOnly session cookie and returns to next', async () => {
    const agent = request.agent(t.baseUrl);
    const page = await agent.get('/signup').expect(200);
    const email = `page-${randomUUID().slice(0, 8)}@example.test`;
    const res = await agent
      .post('/signup')
      .type('form')
      .send(
        form({
          csrf: csrfOf(page.text),
          next: '/api/agent/oauth/authorize?client_id=abc&state=x',
          name: 'Page Person',
          email,
          password: 'correct horse battery staple',
          organizationName: 'Page Org',
        }),
      )
      .expect(303);
    expect(res.headers.location).toBe('/api/agent/oauth/authorize?client_id=abc&state=x');
    const cookie = sessionCookieOf(res)!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const jwt = decodeURIComponent(/^ag_session=([^;]+)/.exec(cookie)![1]!);
    const session = await t.app.get(SessionTokenService).resolve(jwt);
    const [user] = await t.dataSource.query('SELECT id FROM users WHERE email = $1', [email]);
    expect(session).toEqual({ kind: 'session', userId: user.id, sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/), expiresAt: expect.any(Date), email, ssoIssuer: null });
    const [membership] = await t.dataSource.query(
      'SELECT m.role, o.name FROM memberships m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = $1',
      [user.id],
    );
    expect(membership).toEqual({ role: 'admin', name: 'Page Org' });
  });

  it('without next, lands on the dashboard, which knows the new session and prompts for the first project', async () => {
    const agent = request.agent(t.baseUrl);
    const page = await agent.get('/signup').expect(200);
    const email = `welcome-${randomUUID().slice(0, 8)}@example.test`;
    const res = await agent
      .post('/signup')
      .type('form')
      .send(form({ csrf: csrfOf(page.text), name: 'Wendy <Welcome>', email, password: 'correct horse battery staple', organizationName: 'W Org' }))
      .expect(303);
    expect(res.headers.location).toBe('/');
    const home = await agent.get('/').expect(303);
    const [organization] = await t.dataSource.query(
      'SELECT o.id FROM organizations o JOIN memberships m ON m.organization_id = o.id JOIN users u ON u.id = m.user_id WHERE u.email = $1',
      [email],
    );
    expect(home.headers.location).toBe(`/orgs/${organization.id}/projects`);
    const dashboard = await agent.get(home.headers.location).expect(200);
    // The dashboard's headers: no framing, no caching, no script but its own file.
    expect(dashboard.headers['x-frame-options']).toBe('DENY');
    expect(dashboard.headers['cache-control']).toBe('no-store');
    expect(dashboard.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(dashboard.headers['content-security-policy']).toContain("script-src 'self'");
    expect(dashboard.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(dashboard.text).toContain('Wendy &lt;Welcome&gt;');
    expect(dashboard.text).toContain(email);
    expect(dashboard.text).not.toContain('<Welcome>');
    expect(dashboard.text).toContain('Create your first project');
    expect(dashboard.text).toContain('<label for="project-name">Project name</label>');
  });

  it.each(['https://evil.example/x', '//evil.example/x', '/\\evil.example'])('never redirects off-site (next=%s)', async (next) => {
    const agent = request.agent(t.baseUrl);
    const page = await agent.get('/signup').expect(200);
    const res = await agent
      .post('/signup')
      .type('form')
      .send(
        form({
          csrf: csrfOf(page.text),
          next,
          name: 'N',
          email: `next-${randomUUID().slice(0, 8)}@example.test`,
          password: 'correct horse battery staple',
          organizationName: 'O',
        }),
      )
      .expect(303);
    expect(res.headers.location).toBe('/');
  });

  it('refuses a POST without the CSRF cookie, with a wrong token, or from another origin, creating nothing', async () => {
    const agent = request.agent(t.baseUrl);
    const page = await agent.get('/signup').expect(200);
    const email = `csrf-${randomUUID().slice(0, 8)}@example.test`;
    const fields = { name: 'C', email, password: 'correct horse battery staple', organizationName: 'O' };
    const noCookie = await request(t.baseUrl).post('/signup').type('form').send(form({ ...fields, csrf: csrfOf(page.text) })).expect(403);
    expectPageHeaders(noCookie);
    expect(noCookie.text).toContain('This form has expired or did not come from this site');
    await agent.post('/signup').type('form').send(form({ ...fields, csrf: 'x'.repeat(43) })).expect(403);
    await agent.post('/signup').type('form').send(form(fields)).expect(403);
    await agent
      .post('/signup')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send(form({ ...fields, csrf: csrfOf(page.text) }))
      .expect(403);
    expect(await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(0);
    // The refused form keeps what was typed, except the password, and carries a fresh token.
    const again = await agent.post('/signup').type('form').send(form(fields)).expect(403);
    expect(again.text).toContain(`value="${email}"`);
    expect(again.text).not.toContain('correct horse');
    await agent.post('/signup').type('form').send(form({ ...fields, csrf: csrfOf(again.text) })).expect(303);
  });

  it('shows each bad field with its message, linked from an error summary, and keeps the values', async () => {
    const agent = request.agent(t.baseUrl);
    const page = await agent.get('/signup').expect(200);
    const res = await agent
      .post('/signup')
      .type('form')
      .send(form({ csrf: csrfOf(page.text), name: '', email: 'nope', password: 'short', organizationName: 'Org "quoted"' }))
      .expect(400);
    expectPageHeaders(res);
    expect(res.text).toContain('role="alert"');
    expect(res.text).toContain('<a href="#email">Enter an email address like name@example.com</a>');
    expect(res.text).toContain('<a href="#password">Password must be between 12 and 1024 characters</a>');
    expect(res.text).toContain('<a href="#name">Enter your name</a>');
    expect(res.text).toMatch(/<input id="email"[^>]*value="nope"[^>]*aria-describedby="email-error"[^>]*aria-invalid="true"/);
    expect(res.text).toContain('value="Org &quot;quoted&quot;"');
  });

  it('says that it creates a new organisation and that joining one needs an invitation, whatever the organisation name', async () => {
    const res = await request(t.baseUrl).get('/signup').expect(200);
    const text = res.text.replace(/<[^>]+>/g, '');
    expect(text).toContain('This creates a new organisation, with you as its administrator.');
    expect(text).toContain('To join an organisation that already exists, ask one of its administrators for an invitation link and open it.');
  });

  it('answers 409 on the page for a taken email', async () => {
    const user = await createUser(t.dataSource);
    const agent = request.agent(t.baseUrl);
    const page = await agent.get('/signup').expect(200);
    const res = await agent
      .post('/signup')
      .type('form')
      .send(form({ csrf: csrfOf(page.text), name: 'Dup', email: user.email, password: 'correct horse battery staple', organizationName: 'O' }))
      .expect(409);
    expect(res.text).toContain('An account with this email already exists');
    expect(sessionCookieOf(res)).toBeUndefined();
  });

  it('answers the former landing page /signup/welcome with the dashboard, which sends anyone signed out to sign in', async () => {
    const res = await request(t.baseUrl).get('/signup/welcome').expect(303);
    expect(res.headers.location).toBe('/');
    const home = await request(t.baseUrl).get('/').expect(303);
    expect(home.headers.location).toBe('/login?next=%2F');
  });
});

(chromiumAvailable() ? describe : describe.skip)('the HTML sign-up page in a real browser (Debian Chromium)', () => {
  let t: TestApp;
  let browser: Chromium;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, browser, close } = await browserApp());
  });
  afterAll(() => close?.());

  it('applies the shared stylesheet under the CSP, and a person signs up through the form', async () => {
    const page = await browser.context.newPage();
    const blocked: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
    });
    await page.goto(`${t.baseUrl}/signup`);
    expect(await page.evaluate("getComputedStyle(document.querySelector('.card')).borderTopLeftRadius")).toBe('12px');
    const email = `browser-${randomUUID().slice(0, 8)}@example.test`;
    await page.getByLabel('Your name').fill('Browser Person');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByLabel('Organisation name').fill('Browser Org');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/orgs\/[0-9a-f-]{36}\/projects$/);
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Create your first project' }).waitFor();
    await page.getByLabel('Project name').waitFor();
    expect(await page.getByText('Browser Person').count()).toBe(1);
    expect(await page.getByText(email).count()).toBe(1);
    expect(blocked).toEqual([]);
    await page.close();
  });
});

describe('the HTML sign-up page with signup switched off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_ENABLED: 'false' });
  });
  afterAll(() => t.close());

  it('shows that sign-up is closed and refuses the POST', async () => {
    const page = await request(t.baseUrl).get('/signup').expect(403);
    expectPageHeaders(page);
    expect(page.text).toContain('Sign-up is closed');
    expect(page.text).not.toContain('<form');
    await request(t.baseUrl)
      .post('/signup')
      .type('form')
      .send(form({ name: 'X', email: 'x@example.test', password: 'correct horse battery staple', organizationName: 'O' }))
      .expect(403);
  });
});
