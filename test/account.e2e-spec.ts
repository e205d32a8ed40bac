import request from 'supertest';
import { sessionFor, signupOverHttp } from './factories/rest';
import { DashboardClient } from './helpers/dashboard';
import { startTestApp, TestApp } from './helpers/test-app';

/** "Your account": changing one's own password (REST and page), the organisations and this session. */
describe('your account: own password, organisations and sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_RATE_LIMIT_PER_HOUR: '100000' });
  });
  afterAll(() => t.close());

  const bearer = { type: 'bearer' } as const;
  const me = (jwt: string) => request(t.baseUrl).get('/api/me').auth(jwt, bearer);
  const login = (email: string, password: string) => request(t.baseUrl).post('/api/auth/login').send({ email, password });

  it('REST: POST /api/auth/password needs the current password; other sessions end, the answer is a fresh session', async () => {
    const person = await signupOverHttp(t);
    const other = (await login(person.user.email, person.password).expect(200)).body.accessToken as string;
    const wrong = await request(t.baseUrl).post('/api/auth/password').auth(person.accessToken, bearer).send({ currentPassword: 'not the password', newPassword: 'a brand new long password' }).expect(400);
    expect(wrong.body).toEqual({
      statusCode: 400,
      message: 'currentPassword is not the current password of this account',
      error: 'Bad Request',
      code: 'wrong_current_password',
    });
    const short = await request(t.baseUrl).post('/api/auth/password').auth(person.accessToken, bearer).send({ currentPassword: person.password, newPassword: 'short' }).expect(400);
    expect(short.body.message).toEqual(['newPassword must be longer than or equal to 12 characters']);
    await request(t.baseUrl).post('/api/auth/password').send({ currentPassword: person.password, newPassword: 'a brand new long password' }).expect(401);
    await me(other).expect(200);

    const changed = await request(t.baseUrl).post('/api/auth/password').auth(person.accessToken, bearer).send({ currentPassword: person.password, newPassword: 'a brand new long password' }).expect(200);
    expect(changed.headers['cache-control']).toBe('no-store');
    expect(changed.body).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: expect.any(Number) });
    await me(other).expect(401);
    await me(person.accessToken).expect(401);
    await me(changed.body.accessToken).expect(200);
    await login(person.user.email, person.password).expect(401);
    await login(person.user.email, 'a brand new long password').expect(200);
    const [event] = await t.dataSource.query(`SELECT actor_id, organization_id FROM audit_events WHERE action = 'password.changed' AND target_id = $1`, [person.user.id]);
    expect(event).toEqual({ actor_id: person.user.id, organization_id: null });
  });

  it('the page lists the organisations with the role and this session, and changes the password keeping this browser signed in', async () => {
    const person = await signupOverHttp(t, { name: 'Pat Account' });
    const page = new DashboardClient(t.baseUrl, await sessionFor(t, person.user.id));
    const elsewhere = new DashboardClient(t.baseUrl, await sessionFor(t, person.user.id));
    const projects = await page.get(`/orgs/${person.organization.id}/projects`);
    expect(projects.text).toContain('<a href="/account">Your account</a>');
    const shown = await page.get('/account');
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<h1>Your account</h1>');
    expect(shown.text).toContain(`<td><a href="/orgs/${person.organization.id}/projects">${person.organization.name}</a></td><td>Admin</td>`);
    expect(shown.text).toContain('This browser (the session you are using now)');

    // Without the CSRF token nothing happens; a wrong current password is named on the page.
    expect((await page.post('/account/password', { currentPassword: person.password, newPassword: 'the page chosen password' }, null)).status).toBe(403);
    const wrong = await page.post('/account/password', { currentPassword: 'nope nope nope', newPassword: 'the page chosen password' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('That is not your current password.');
    const short = await page.post('/account/password', { currentPassword: person.password, newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('New password must be between 12 and 1024 characters');
    expect((await elsewhere.get('/account')).status).toBe(200);

    const changed = await page.post('/account/password', { currentPassword: person.password, newPassword: 'the page chosen password' });
    expect(changed.status).toBe(303);
    expect(changed.headers.location).toBe('/account?done=password-changed');
    const cookie = ((changed.headers['set-cookie'] as unknown as string[]) ?? []).find((c) => c.startsWith('ag_session='));
    expect(cookie).toBeDefined();
    const fresh = new DashboardClient(t.baseUrl, /^ag_session=([^;]+)/.exec(cookie!)![1]!);
    const after = await fresh.get('/account?done=password-changed');
    expect(after.status).toBe(200);
    expect(after.text).toContain('Password changed: your other sessions have ended.');
    // The other browser is sent to sign in.
    const ended = await elsewhere.get('/account');
    expect(ended.status).toBe(303);
    expect(ended.headers.location).toBe('/login?next=%2Faccount');
    await login(person.user.email, 'the page chosen password').expect(200);
  });
});
