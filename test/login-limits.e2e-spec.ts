import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { loginEmailIpKey, loginEmailKey } from '@app/people';
import { createUser } from './factories';
import { hiddenField, TestBrowser } from './factories/oauth';
import { loginPageLockoutMessage, tooManyLoginAttempts, tooManySignups } from './fixtures/limits';
import { startTestApp, TestApp } from './helpers/test-app';

const INVALID = { statusCode: 401, message: 'Invalid email or password', error: 'Unauthorized', code: 'invalid_credentials' };
const WINDOW = 900;

/** A fresh documentation address per call, so tests never share a per-IP counter. */
let ipSeq = 0;
const freshIp = () => `198.51.100.${++ipSeq}`;

describe('login-attempt limits (REST)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '3',
      LOGIN_MAX_FAILURES_PER_EMAIL: '6',
      LOGIN_MAX_FAILURES_PER_IP: '5',
      TRUST_PROXY: 'true',
    });
  });
  afterAll(() => t.close());

  const login = (email: string, password: string, ip: string) =>
    request(t.baseUrl).post('/api/auth/login').set('X-Forwarded-For', ip).send({ email, password });

  function expectLocked(res: request.Response) {
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW);
    expect(res.body).toEqual(tooManyLoginAttempts(retryAfter));
    expect(res.headers['cache-control']).toBe('no-store');
  }

  it('after the limit of failures for one email from one address, that address gets 429 with Retry-After, even for the right password; another address still signs in', async () => {
    const user = await createUser(t.dataSource);
    const ip = freshIp();
    for (let i = 0; i < 3; i++) {
      const res = await login(user.email, `${user.password}x`, ip);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID);
    }
    expectLocked(await login(user.email, `${user.password}x`, ip));
    // The lock is not an oracle: the right password gets the same 429, and no token.
    const right = await login(user.email, user.password, ip);
    expectLocked(right);
    expect(right.body.accessToken).toBeUndefined();
    // Per email whatever the letter case; per address, so a third party failing from its own
    // address does not lock the person out of theirs.
    expectLocked(await login(user.email.toUpperCase(), user.password, ip));
    await login(user.email, user.password, freshIp()).expect(200);
  });

  it('attempts refused at one address do not count towards the email’s ceiling', async () => {
    const user = await createUser(t.dataSource);
    const ip = freshIp();
    for (let i = 0; i < 3; i++) await login(user.email, 'hammer', ip).expect(401);
    for (let i = 0; i < 6; i++) expectLocked(await login(user.email, 'hammer', ip));
    await login(user.email, user.password, freshIp()).expect(200);
  });

  it('past the per-email ceiling, failures spread over addresses lock the email everywhere', async () => {
    const user = await createUser(t.dataSource);
    for (const ip of [freshIp(), freshIp()]) {
      for (let i = 0; i < 3; i++) await login(user.email, 'spread guess', ip).expect(401);
    }
    expectLocked(await login(user.email, user.password, freshIp()));
  });

  it('locks an unknown email exactly like a real one, so the 429 does not reveal which emails exist', async () => {
    const email = `nobody-${randomUUID().slice(0, 8)}@example.test`;
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await login(email, 'wrong password!', ip)).body).toEqual(INVALID);
    expectLocked(await login(email, 'wrong password!', ip));
  });

  it('counts failures across letter cases of one email', async () => {
    const user = await createUser(t.dataSource);
    const ip = freshIp();
    await login(user.email.toUpperCase(), 'nope nope nope', ip).expect(401);
    await login(` ${user.email} `, 'nope nope nope', ip).expect(401);
    await login(user.email, 'nope nope nope', ip).expect(401);
    expectLocked(await login(user.email, user.password, ip));
  });

  it('a successful login clears the email’s failures', async () => {
    const user = await createUser(t.dataSource);
    const ip = freshIp();
    await login(user.email, 'wrong one', ip).expect(401);
    await login(user.email, 'wrong two', ip).expect(401);
    await login(user.email, user.password, ip).expect(200);
    const counters = await t.dataSource.query('SELECT hits FROM rate_limit_counters WHERE key = ANY($1)', [
      [loginEmailKey(user.email), loginEmailIpKey(user.email, ip)],
    ]);
    expect(counters).toEqual([]);
    for (let i = 0; i < 3; i++) await login(user.email, 'wrong again', ip).expect(401);
    expectLocked(await login(user.email, user.password, ip));
  });

  it('stores the email only as a digest', async () => {
    const email = `digest-${randomUUID().slice(0, 8)}@example.test`;
    const ip = freshIp();
    await login(email, 'wrong password', ip).expect(401);
    const rows: { key: string }[] = await t.dataSource.query(`SELECT key FROM rate_limit_counters WHERE key LIKE 'login:email%'`);
    expect(rows.map((r) => r.key)).toContain(loginEmailKey(email));
    expect(rows.map((r) => r.key)).toContain(loginEmailIpKey(email, ip));
    expect(rows.some((r) => r.key.includes('digest-'))).toBe(false);
  });

  it('parallel wrong guesses cannot overrun the limit: exactly the limit is checked, the rest get 429', async () => {
    const user = await createUser(t.dataSource);
    const ip = freshIp();
    const results = await Promise.all(Array.from({ length: 8 }, () => login(user.email, 'parallel guess', ip)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
    for (const res of results.filter((r) => r.status === 429)) expectLocked(res);
  });

  it('after the per-address limit of failures, that address is refused for every email; others are not', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await login(`spray-${i}-${randomUUID().slice(0, 8)}@example.test`, 'password spray', ip).expect(401);
    const victim = await createUser(t.dataSource);
    expectLocked(await login(victim.email, victim.password, ip));
    await login(victim.email, victim.password, freshIp()).expect(200);
  });

  it('successful logins do not use up the per-address budget (many people behind one address)', async () => {
    const ip = freshIp();
    const people = await Promise.all(Array.from({ length: 3 }, () => createUser(t.dataSource)));
    for (let i = 0; i < 4; i++) await login(`typo-${i}-${randomUUID().slice(0, 8)}@example.test`, 'typo typo', ip).expect(401);
    for (let round = 0; round < 3; round++) {
      for (const person of people) await login(person.email, person.password, ip).expect(200);
    }
    await login(`typo-last-${randomUUID().slice(0, 8)}@example.test`, 'typo typo', ip).expect(401);
    expectLocked(await login(people[0].email, people[0].password, ip));
  });

  it('the lock ends with its window', async () => {
    const user = await createUser(t.dataSource);
    const ip = freshIp();
    for (let i = 0; i < 3; i++) await login(user.email, 'wrong', ip).expect(401);
    expectLocked(await login(user.email, user.password, ip));
    // Move the window's end into the past instead of waiting 15 minutes.
    await t.dataSource.query(`UPDATE rate_limit_counters SET window_ends_at = now() - interval '1 second' WHERE key = ANY($1)`, [
      [loginEmailKey(user.email), loginEmailIpKey(user.email, ip)],
    ]);
    await login(user.email, user.password, ip).expect(200);
  });
});

describe('login-attempt limits (HTML sign-in page), shared with REST', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '3' });
  });
  afterAll(() => t.close());

  async function expectLockedPage(res: Response) {
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('location')).toBeNull();
    const page = await res.text();
    expect(page).toContain(`<div class="error" role="alert" id="login-error">${loginPageLockoutMessage(retryAfter)}</div>`);
    expect(page).toContain('<form method="post" action="/login"');
    return page;
  }

  it('after the failures, the page answers the form again with 429 and no session, even for the right password', async () => {
    const user = await createUser(t.dataSource);
    const browser = new TestBrowser(t.baseUrl);
    for (let i = 0; i < 3; i++) {
      const res = await browser.login(user.email, 'not my password');
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('Wrong email or password.');
    }
    await expectLockedPage(await browser.login(user.email, 'not my password'));
    const right = await browser.login(user.email, user.password, '/');
    const page = await expectLockedPage(right);
    expect(hiddenField(page, 'csrf_token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(browser.cookies.has('ag_session')).toBe(false);
  });

  it('failures over REST lock the page, and failures on the page lock REST', async () => {
    const a = await createUser(t.dataSource);
    for (let i = 0; i < 3; i++) await request(t.baseUrl).post('/api/auth/login').send({ email: a.email, password: 'wrong' }).expect(401);
    await expectLockedPage(await new TestBrowser(t.baseUrl).login(a.email, a.password));

    const b = await createUser(t.dataSource);
    const browser = new TestBrowser(t.baseUrl);
    for (let i = 0; i < 3; i++) expect((await browser.login(b.email, 'wrong')).status).toBe(401);
    const res = await request(t.baseUrl).post('/api/auth/login').send({ email: b.email, password: b.password }).expect(429);
    expect(res.body).toEqual(tooManyLoginAttempts(Number(res.headers['retry-after'])));
  });

  it('a sign-in on the page clears the email’s failures', async () => {
    const user = await createUser(t.dataSource);
    const browser = new TestBrowser(t.baseUrl);
    for (let i = 0; i < 2; i++) expect((await browser.login(user.email, 'wrong')).status).toBe(401);
    expect((await browser.login(user.email, user.password)).status).toBe(303);
    for (let i = 0; i < 3; i++) expect((await new TestBrowser(t.baseUrl).login(user.email, 'wrong')).status).toBe(401);
    await expectLockedPage(await new TestBrowser(t.baseUrl).login(user.email, user.password));
  });
});

describe('sign-up limit per address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_RATE_LIMIT_PER_HOUR: '2', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  const account = () => ({
    email: `s-${randomUUID().slice(0, 8)}@example.test`,
    password: 'a long enough password',
    name: 'Sam',
    organizationName: 'Sam’s org',
  });

  it('REST: past the hourly limit from one address answers 429 with Retry-After; another address still signs up', async () => {
    const ip = '192.0.2.10';
    for (let i = 0; i < 2; i++) await request(t.baseUrl).post('/api/auth/signup').set('X-Forwarded-For', ip).send(account()).expect(201);
    const refused = await request(t.baseUrl).post('/api/auth/signup').set('X-Forwarded-For', ip).send(account()).expect(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.body).toEqual(tooManySignups(retryAfter));
    await request(t.baseUrl).post('/api/auth/signup').set('X-Forwarded-For', '192.0.2.11').send(account()).expect(201);
  });

  it('the sign-up page answers the form again with 429 and keeps what was typed', async () => {
    // The page's requests come from 127.0.0.1: use its budget up over REST first.
    for (let i = 0; i < 2; i++) await request(t.baseUrl).post('/api/auth/signup').send(account()).expect(201);
    const browser = new TestBrowser(t.baseUrl);
    const form = await (await browser.get('/signup')).text();
    const input = account();
    const res = await browser.post('/signup', { ...input, csrf: hiddenField(form, 'csrf') });
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    const page = await res.text();
    expect(page).toContain(`Too many accounts were created from this network recently. Please wait ${Math.ceil(retryAfter / 60)} minute`);
    expect(page).toContain(`value="${input.email}"`);
    expect(browser.cookies.has('ag_session')).toBe(false);
    const [user] = await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [input.email]);
    expect(user).toBeUndefined();
  });
});
