import { randomUUID } from 'node:crypto';
import { SessionTokenService } from '@app/people';
import { startTestApp, TestApp } from './helpers/test-app';
import { addMember, createOrganization, createProject, createUser } from './factories';
import { authorizeCode, authorizePath, createPersonWithProject, formChoices, hiddenField, openConsent, pkcePair, redirectParams, registerClient, RegisteredTestClient, TestBrowser } from './factories/oauth';
import { PAGE_CSP, PAGE_HEADERS } from './fixtures/html-pages';

const CONSENT = '/api/agent/oauth/authorize';

describe('OAuth authorize, login and consent (SPEC §5)', () => {
  let t: TestApp;
  let client: RegisteredTestClient;
  const { challenge } = pkcePair();

  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
    client = await registerClient(t.baseUrl, { client_name: 'Cursor <b>&</b>', redirect_uris: ['http://127.0.0.1:8976/callback', 'cursor://anysphere.cursor-retrieval/cb'] });
  });
  afterAll(() => t.close());

  const valid = (overrides: Record<string, string | undefined> = {}) =>
    authorizePath(
      Object.fromEntries(
        Object.entries({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: 'http://127.0.0.1:8976/callback',
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 'st-123',
          scope: 'project:read tasks:read',
          resource: `${t.baseUrl}/api/mcp`,
          ...overrides,
        }).filter((e): e is [string, string] => e[1] !== undefined),
      ),
    );

  /** A browser signed in as a fresh person (session cookie issued directly). */
  async function signedIn(userId: string): Promise<TestBrowser> {
    const browser = new TestBrowser(t.baseUrl);
    const { accessToken } = await t.app.get(SessionTokenService).issue(userId);
    browser.cookies.set('ag_session', accessToken);
    return browser;
  }

  function expectPageHeaders(res: Response) {
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(res.headers.get(name)).toBe(value);
    expect(res.headers.get('content-security-policy')).toMatch(PAGE_CSP);
  }

  describe('before the redirect URI is trusted: an HTML error page, never a redirect', () => {
    it.each([
      ['an unknown client', { client_id: randomUUID() }, 'Unknown application'],
      ['a missing client_id', { client_id: undefined }, 'Invalid request'],
      ['an unregistered redirect URI', { redirect_uri: 'https://evil.example/cb' }, 'Unregistered redirect URI'],
      ['a redirect URI differing in path', { redirect_uri: 'http://127.0.0.1:8976/callback/x' }, 'Unregistered redirect URI'],
      ['a redirect URI differing in host', { redirect_uri: 'http://localhost:8976/callback' }, 'Unregistered redirect URI'],
      ['a missing redirect URI when several are registered', { redirect_uri: undefined }, 'Invalid request'],
      ['an unregistered redirect URI together with plain PKCE', { redirect_uri: 'https://evil.example/cb', code_challenge_method: 'plain' }, 'Unregistered redirect URI'],
    ])('%s', async (_label, overrides, title) => {
      const res = await fetch(`${t.baseUrl}${valid(overrides)}`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expectPageHeaders(res);
      const html = await res.text();
      expect(html).toContain(`<h1 id="error-title">${title}</h1>`);
      expect(html).not.toContain('evil.example');
    });
  });

  describe('after the redirect URI is checked, for a signed-in person who has authorised the client: errors go back to it with error, state and iss', () => {
    let trusting: TestBrowser;
    beforeAll(async () => {
      const person = await createPersonWithProject(t);
      trusting = await signedIn(person.user.id);
      await authorizeCode(t, { browser: trusting, client, projectId: person.project.id });
    });

    it.each([
      ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method plain is not supported; use S256'],
      ['no PKCE at all', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256'],
      ['a challenge without a method', { code_challenge_method: undefined }, 'invalid_request', 'code_challenge_method is required and must be S256 (plain is not supported)'],
      ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the code verifier'],
      ['response_type=token', { response_type: 'token' }, 'unsupported_response_type', 'Only response_type=code is supported'],
      ['no response_type', { response_type: undefined }, 'invalid_request', 'response_type is required'],
      ['a foreign resource', { resource: 'https://other.example/api/mcp' }, 'invalid_target', 'resource must be __BASE__/api/mcp'],
      ['a resource with two trailing slashes', { resource: '__BASE__/api/mcp//' }, 'invalid_target', 'resource must be __BASE__/api/mcp'],
    ])('%s', async (_label, overrides, error, description) => {
      const fixed = Object.fromEntries(Object.entries(overrides).map(([k, v]) => [k, v?.replace('__BASE__', t.baseUrl)]));
      const res = await trusting.get(valid(fixed));
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:8976/callback');
      expect(Object.fromEntries(location.searchParams)).toEqual({
        error,
        error_description: description.replace('__BASE__', t.baseUrl),
        state: 'st-123',
        iss: t.baseUrl,
      });
    });
  });

  it('sends a visitor without a session to the login page and back, then shows the consent page', async () => {
    const person = await createPersonWithProject(t);
    const browser = new TestBrowser(t.baseUrl);
    const path = valid();
    const first = await browser.get(path);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);

    const loginPage = await browser.get(first.headers.get('location')!);
    expect(loginPage.status).toBe(200);
    expectPageHeaders(loginPage);
    const loginHtml = await loginPage.text();
    expect(loginHtml).toContain(`<a href="/signup?next=${encodeURIComponent(path).replace(/&/g, '&amp;')}">Create one</a>`);
    expect(hiddenField(loginHtml, 'next')).toBe(path);

    const wrong = await browser.post('/login', {
      email: person.user.email,
      password: 'not the password',
      next: path,
      csrf_token: hiddenField(loginHtml, 'csrf_token'),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie') ?? '').not.toContain('ag_session=');
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toContain('<div class="error" role="alert" id="login-error">Wrong email or password.</div>');
    expect(wrongHtml).toContain('<form method="post" action="/login"');

    const ok = await browser.post('/login', {
      email: person.user.email.toUpperCase(),
      password: person.user.password,
      next: path,
      csrf_token: hiddenField(loginHtml, 'csrf_token'),
    });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(path);
    expect(browser.cookies.get('ag_session')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const consent = await browser.get(path);
    expect(consent.status).toBe(200);
    expectPageHeaders(consent);
    const html = await consent.text();
    expect(html).toContain('Allow <strong>Cursor &lt;b&gt;&amp;&lt;/b&gt;</strong> to use Agent Gateway?');
    expect(html).toContain('<code>127.0.0.1:8976</code>');
    expect(formChoices(html, 'project_id')).toEqual([{ value: person.project.id, checked: true }]);
    expect(formChoices(html, 'permissions')).toEqual([
      { value: 'project:read', checked: true },
      { value: 'tasks:read', checked: true },
      { value: 'tasks:write', checked: false },
      { value: 'tasks:delete', checked: false },
    ]);
  });

  it('refuses a login form posted without its CSRF token', async () => {
    const person = await createPersonWithProject(t);
    const browser = new TestBrowser(t.baseUrl);
    await browser.get('/login');
    const res = await browser.post('/login', { email: person.user.email, password: person.user.password, next: '/' });
    expect(res.status).toBe(403);
    expect(browser.cookies.has('ag_session')).toBe(false);
  });

  it('refuses a login form posted from another origin or with a wrong token, even with the CSRF cookie', async () => {
    const person = await createPersonWithProject(t);
    const browser = new TestBrowser(t.baseUrl);
    const page = await browser.get('/login');
    const cookie = page.headers.getSetCookie().find((c) => c.startsWith('ag_login_csrf='));
    expect(cookie).toMatch(/^ag_login_csrf=[\w-]{43}; Max-Age=\d+; Path=\/login; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
    const token = hiddenField(await page.text(), 'csrf_token');
    const post = (csrf: string, headers: Record<string, string> = {}) =>
      fetch(`${t.baseUrl}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `ag_login_csrf=${browser.cookies.get('ag_login_csrf')!}`,
          ...headers,
        },
        body: new URLSearchParams({ email: person.user.email, password: person.user.password, next: '/', csrf_token: csrf }).toString(),
      });
    for (const res of [
      await post(token, { origin: 'https://evil.example' }),
      await post(token, { origin: 'null', 'sec-fetch-site': 'cross-site' }),
      await post('x'.repeat(43)),
    ]) {
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('The sign-in form expired. Please sign in again.');
      expect(res.headers.getSetCookie().some((c) => c.startsWith('ag_session='))).toBe(false);
    }
    expect((await post(token, { origin: new URL(t.baseUrl).origin })).status).toBe(303);
  });

  it('never sends the login page to another site', async () => {
    const person = await createPersonWithProject(t);
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const browser = new TestBrowser(t.baseUrl);
      const res = await browser.login(person.user.email, person.user.password, next);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/');
    }
  });

  it('lists the reachable projects grouped by organisation, and pre-ticks every permission when scope names none', async () => {
    const user = await createUser(t.dataSource);
    const orgA = await createOrganization(t.dataSource, `A ${randomUUID().slice(0, 6)}`);
    const orgB = await createOrganization(t.dataSource, `B ${randomUUID().slice(0, 6)}`);
    const foreign = await createOrganization(t.dataSource);
    await addMember(t.dataSource, orgA.id, user.id, 'member');
    await addMember(t.dataSource, orgB.id, user.id, 'admin');
    const a1 = await createProject(t.dataSource, orgA.id, 'Alpha');
    const a2 = await createProject(t.dataSource, orgA.id, 'Beta');
    const deleted = await createProject(t.dataSource, orgA.id, 'Gone');
    await t.dataSource.query('UPDATE projects SET deleted_at = now() WHERE id = $1', [deleted.id]);
    const b1 = await createProject(t.dataSource, orgB.id, 'Gamma');
    const other = await createProject(t.dataSource, foreign.id, 'Not yours');

    const consent = await openConsent(await signedIn(user.id), valid({ scope: 'offline_access openid' }));
    expect(formChoices(consent.html, 'project_id').map((c) => c.value)).toEqual([a1.id, a2.id, b1.id]);
    expect(formChoices(consent.html, 'project_id').some((c) => c.checked)).toBe(false);
    expect(consent.html).not.toContain(deleted.id);
    expect(consent.html).not.toContain(other.id);
    expect(consent.html).toMatch(new RegExp(`<legend>${orgA.name}</legend>[\\s\\S]*Alpha[\\s\\S]*Beta[\\s\\S]*<legend>${orgB.name}</legend>[\\s\\S]*Gamma`));
    expect(formChoices(consent.html, 'permissions').every((c) => c.checked)).toBe(true);
    expect(consent.html).toContain("List and read the project&#39;s tasks.");
  });

  it('tells a person without any project that there is nothing to connect, and still lets them deny', async () => {
    const user = await createUser(t.dataSource);
    const browser = await signedIn(user.id);
    const consent = await openConsent(browser, valid());
    expect(consent.html).toContain('You are not a member of any organisation with a project');
    expect(formChoices(consent.html, 'project_id')).toEqual([]);
    expect(consent.html).not.toContain('value="approve"');
    const res = await browser.post(CONSENT, { request_id: consent.requestId, csrf_token: consent.csrfToken, decision: 'deny' });
    expect(redirectParams(res).get('error')).toBe('access_denied');
  });

  it('approves: redirects with code, state and iss and records the consent', async () => {
    const person = await createPersonWithProject(t);
    const browser = await signedIn(person.user.id);
    const consent = await openConsent(browser, valid());
    const res = await browser.post(CONSENT, {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      project_id: person.project.id,
      permissions: ['tasks:read'],
      decision: 'approve',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:8976/callback');
    expect([...location.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
    expect(location.searchParams.get('code')).toMatch(/^dgc_/);
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe(t.baseUrl);
    const [grant] = await t.dataSource.query('SELECT id, permissions, project_id FROM oauth_grants WHERE user_id = $1', [person.user.id]);
    expect(grant).toMatchObject({ permissions: ['tasks:read'], project_id: person.project.id });
    const events = await t.dataSource.query(
      "SELECT organization_id, project_id, actor_type, actor_id, target_id, metadata FROM audit_events WHERE action = 'consent.approved' AND actor_id = $1",
      [person.user.id],
    );
    expect(events).toEqual([
      {
        organization_id: person.organization.id,
        project_id: person.project.id,
        actor_type: 'user',
        actor_id: person.user.id,
        target_id: grant.id,
        metadata: { clientId: client.client_id, clientName: 'Cursor <b>&</b>', permissions: ['tasks:read'] },
      },
    ]);

    const again = await browser.post(CONSENT, {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      project_id: person.project.id,
      permissions: ['tasks:read'],
      decision: 'approve',
    });
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
    expect(await again.text()).toContain('<h1 id="error-title">Request expired</h1>');
  });

  it('denies: redirects with error=access_denied, state and iss and records it', async () => {
    const person = await createPersonWithProject(t);
    const browser = await signedIn(person.user.id);
    const consent = await openConsent(browser, valid());
    const res = await browser.post(CONSENT, { request_id: consent.requestId, csrf_token: consent.csrfToken, decision: 'deny' });
    expect(res.status).toBe(303);
    expect(Object.fromEntries(redirectParams(res))).toEqual({
      error: 'access_denied',
      error_description: 'The person denied the request',
      state: 'st-123',
      iss: t.baseUrl,
    });
    const events = await t.dataSource.query("SELECT target_id FROM audit_events WHERE action = 'consent.denied' AND actor_id = $1", [person.user.id]);
    expect(events).toEqual([{ target_id: client.client_id }]);
  });

  it('matches a loopback redirect URI on any port and answers on the port asked for (RFC 8252)', async () => {
    const person = await createPersonWithProject(t);
    const browser = await signedIn(person.user.id);
    const consent = await openConsent(browser, valid({ redirect_uri: 'http://127.0.0.1:51234/callback' }));
    const res = await browser.post(CONSENT, {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      project_id: person.project.id,
      permissions: 'project:read',
      decision: 'approve',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:51234\/callback\?code=dgc_/);
  });

  it('refuses a consent form without its CSRF token or with a wrong one (and keeps the request usable)', async () => {
    const person = await createPersonWithProject(t);
    const browser = await signedIn(person.user.id);
    const consent = await openConsent(browser, valid());
    const choices = { request_id: consent.requestId, project_id: person.project.id, permissions: 'project:read', decision: 'approve' };
    for (const csrf of [undefined, 'wrong-token']) {
      const res = await browser.post(CONSENT, { ...choices, csrf_token: csrf });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
      expectPageHeaders(res);
      expect(await res.text()).toContain('<h1 id="error-title">Form expired</h1>');
    }
    expect(await t.dataSource.query('SELECT 1 FROM oauth_grants WHERE user_id = $1', [person.user.id])).toEqual([]);
    const ok = await browser.post(CONSENT, { ...choices, csrf_token: consent.csrfToken });
    expect(ok.status).toBe(303);
  });

  it('refuses a project the person cannot reach, submitted by hand: no code', async () => {
    const person = await createPersonWithProject(t);
    const foreignOrg = await createOrganization(t.dataSource);
    const foreign = await createProject(t.dataSource, foreignOrg.id);
    const deleted = await createProject(t.dataSource, person.organization.id);
    await t.dataSource.query('UPDATE projects SET deleted_at = now() WHERE id = $1', [deleted.id]);
    const browser = await signedIn(person.user.id);
    const consent = await openConsent(browser, valid());
    for (const projectId of [foreign.id, deleted.id, randomUUID(), 'not-a-uuid']) {
      const res = await browser.post(CONSENT, {
        request_id: consent.requestId,
        csrf_token: consent.csrfToken,
        project_id: projectId,
        permissions: 'project:read',
        decision: 'approve',
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
      const html = await res.text();
      expect(html).toContain('<div class="error" role="alert" id="consent-error">You cannot give access to that project. Pick one of the projects listed.</div>');
      expect(html).not.toContain('dgc_');
    }
    expect(await t.dataSource.query('SELECT 1 FROM oauth_grants WHERE user_id = $1', [person.user.id])).toEqual([]);
  });

  it('needs one project and at least one permission', async () => {
    const person = await createPersonWithProject(t);
    const browser = await signedIn(person.user.id);
    const consent = await openConsent(browser, valid());
    const base = { request_id: consent.requestId, csrf_token: consent.csrfToken, decision: 'approve' };
    const noPermission = await browser.post(CONSENT, { ...base, project_id: person.project.id });
    expect(noPermission.status).toBe(400);
    expect(await noPermission.text()).toContain('Tick at least one permission, or choose Deny.');
    const noProject = await browser.post(CONSENT, { ...base, permissions: 'project:read' });
    expect(noProject.status).toBe(400);
    expect(await noProject.text()).toContain('Pick the project the application may work on.');
    const unknown = await browser.post(CONSENT, { ...base, project_id: person.project.id, permissions: ['project:read', 'admin:all'] });
    expect(unknown.status).toBe(400);
    const two = await browser.post(CONSENT, { ...base, project_id: [person.project.id, person.project.id], permissions: 'project:read' });
    expect(two.status).toBe(400);
    expect(await t.dataSource.query('SELECT 1 FROM oauth_grants WHERE user_id = $1', [person.user.id])).toEqual([]);
  });

  it('refuses a decision without a session, or from another person', async () => {
    const person = await createPersonWithProject(t);
    const consent = await openConsent(await signedIn(person.user.id), valid());
    const form = { request_id: consent.requestId, csrf_token: consent.csrfToken, project_id: person.project.id, permissions: 'project:read', decision: 'approve' };
    const anonymous = await new TestBrowser(t.baseUrl).post(CONSENT, form);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('location')).toBeNull();
    const intruder = await createPersonWithProject(t);
    const other = await (await signedIn(intruder.user.id)).post(CONSENT, form);
    expect(other.status).toBe(403);
    expect(other.headers.get('location')).toBeNull();
  });
});
