import request from 'supertest';
import { signupOverHttp } from './factories/rest';
import { DashboardClient } from './helpers/dashboard';
import { startTestApp, TestApp } from './helpers/test-app';

/** "Your account" lists the person's sessions, one row per sign-in; ended ones leave the list. */
describe('your account: the list of sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_RATE_LIMIT_PER_HOUR: '100000' });
  });
  afterAll(() => t.close());

  const bearer = { type: 'bearer' } as const;
  const login = (email: string, password: string, userAgent: string) =>
    request(t.baseUrl).post('/api/auth/login').set('User-Agent', userAgent).send({ email, password }).expect(200);
  const sessionsOf = (jwt: string) => request(t.baseUrl).get('/api/auth/sessions').auth(jwt, bearer);

  it('REST: two sign-ins are listed newest first with this one marked; after sign-out everywhere only a later sign-in is', async () => {
    const person = await signupOverHttp(t);
    const first = (await login(person.user.email, person.password, 'FirstBrowser/1.0')).body.accessToken as string;
    const second = (await login(person.user.email, person.password, 'SecondBrowser/2.0')).body.accessToken as string;

    const listed = await sessionsOf(first).expect(200);
    expect(listed.headers['cache-control']).toBe('no-store');
    // The sign-up's own session (its client sent no User-Agent), then the two sign-ins: newest first.
    expect(listed.body.items.map((s: { userAgent: string | null }) => s.userAgent)).toEqual(['SecondBrowser/2.0', 'FirstBrowser/1.0', null]);
    expect(listed.body.items.map((s: { current: boolean }) => s.current)).toEqual([false, true, false]);
    const [newest] = listed.body.items;
    expect(newest).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      userAgent: 'SecondBrowser/2.0',
      ip: expect.any(String),
      current: false,
    });
    expect(new Date(newest.expiresAt).getTime()).toBeGreaterThan(Date.now());
    expect((await sessionsOf(second).expect(200)).body.items.map((s: { current: boolean }) => s.current)).toEqual([true, false, false]);

    // Signing one session out removes it from the list.
    await request(t.baseUrl).post('/api/auth/logout').auth(second, bearer).expect(204);
    expect((await sessionsOf(first).expect(200)).body.items.map((s: { userAgent: string }) => s.userAgent).slice(0, 1)).toEqual(['FirstBrowser/1.0']);

    await request(t.baseUrl).post('/api/auth/logout-all').auth(first, bearer).expect(204);
    await sessionsOf(first).expect(401);
    const third = (await login(person.user.email, person.password, 'ThirdBrowser/3.0')).body.accessToken as string;
    const after = await sessionsOf(third).expect(200);
    expect(after.body.items).toEqual([expect.objectContaining({ userAgent: 'ThirdBrowser/3.0', current: true })]);
    // The ended sessions' rows are gone, not only hidden.
    const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM sessions WHERE user_id = $1`, [person.user.id]);
    expect(count).toBe(1);
  });

  it('REST: the list is for sessions only, and a person sees only their own', async () => {
    const person = await signupOverHttp(t);
    const other = await signupOverHttp(t);
    await request(t.baseUrl).get('/api/auth/sessions').expect(401);
    const mine = (await sessionsOf(person.accessToken).expect(200)).body.items as { id: string }[];
    const theirs = (await sessionsOf(other.accessToken).expect(200)).body.items as { id: string }[];
    expect(mine).toHaveLength(1);
    expect(theirs).toHaveLength(1);
    expect(mine[0]!.id).not.toBe(theirs[0]!.id);
  });

  it('the page lists both sign-ins with "this session" on the right one; after sign-out everywhere only the new one', async () => {
    const person = await signupOverHttp(t);
    const first = (await login(person.user.email, person.password, 'PageBrowserOne/1.0')).body.accessToken as string;
    const second = (await login(person.user.email, person.password, 'PageBrowserTwo/2.0')).body.accessToken as string;
    const page = new DashboardClient(t.baseUrl, first);
    const shown = await page.get('/account');
    expect(shown.status).toBe(200);
    const rows = shown.text.split('<tr').filter((r) => r.includes('PageBrowser'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('PageBrowserTwo/2.0');
    expect(rows[0]).not.toContain('This browser (the session you are using now)');
    expect(rows[1]).toContain('PageBrowserOne/1.0');
    expect(rows[1]).toContain('This browser (the session you are using now)');

    const ended = await page.post('/sign-out-everywhere', {});
    expect(ended.status).toBe(303);
    expect((await new DashboardClient(t.baseUrl, second).get('/account')).status).toBe(303);
    const third = (await login(person.user.email, person.password, 'PageBrowserThree/3.0')).body.accessToken as string;
    const after = await new DashboardClient(t.baseUrl, third).get('/account');
    expect(after.status).toBe(200);
    expect(after.text).toContain('PageBrowserThree/3.0');
    expect(after.text).not.toContain('PageBrowserOne/1.0');
    expect(after.text).not.toContain('PageBrowserTwo/2.0');
  });

  it('the page signs out one listed session (with the form token only); another person\'s session is a 404', async () => {
    const person = await signupOverHttp(t);
    const other = await signupOverHttp(t);
    const here = (await login(person.user.email, person.password, 'KeepBrowser/1.0')).body.accessToken as string;
    const there = (await login(person.user.email, person.password, 'EndBrowser/1.0')).body.accessToken as string;
    const listed = (await sessionsOf(here).expect(200)).body.items as { id: string; userAgent: string | null }[];
    const target = listed.find((s) => s.userAgent === 'EndBrowser/1.0')!.id;
    const page = new DashboardClient(t.baseUrl, here);
    await page.get('/account');

    expect((await page.post(`/account/sessions/${target}/sign-out`, {}, null)).status).toBe(403);
    await request(t.baseUrl).get('/api/me').auth(there, bearer).expect(200);
    const foreign = (await sessionsOf(other.accessToken).expect(200)).body.items[0].id as string;
    expect((await page.post(`/account/sessions/${foreign}/sign-out`)).status).toBe(404);
    await request(t.baseUrl).get('/api/me').auth(other.accessToken, bearer).expect(200);
    expect((await page.post('/account/sessions/not-a-session/sign-out')).status).toBe(404);

    const ended = await page.post(`/account/sessions/${target}/sign-out`);
    expect(ended.status).toBe(303);
    expect(ended.headers.location).toBe('/account?done=session-ended');
    await request(t.baseUrl).get('/api/me').auth(there, bearer).expect(401);
    const after = await page.get('/account?done=session-ended');
    expect(after.text).toContain('That session is signed out.');
    expect(after.text).not.toContain('EndBrowser/1.0');
    expect(after.text).toContain('KeepBrowser/1.0');

    // Signing out the session in use ends it and goes back to sign in.
    const own = await page.post(`/account/sessions/${listed.find((s) => s.userAgent === 'KeepBrowser/1.0')!.id}/sign-out`);
    expect(own.status).toBe(303);
    expect(own.headers.location).toBe('/login');
    await request(t.baseUrl).get('/api/me').auth(here, bearer).expect(401);
  });
});
