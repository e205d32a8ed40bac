import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createUser, createProjectWithToken } from './factories';
import { createApiKey, signupOverHttp } from './factories/rest';
import { REST_ERRORS } from './fixtures/rest-errors';
import { startTestApp, TestApp } from './helpers/test-app';

const JWT_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function signupBody(overrides: Record<string, unknown> = {}) {
  return {
    email: `ada-${randomUUID().slice(0, 8)}@example.test`,
    password: 'correct horse battery staple',
    name: 'Ada Lovelace',
    organizationName: 'Analytical Engines',
    ...overrides,
  };
}

describe('signup, login and /api/me (SPEC §6)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('POST /api/auth/signup', () => {
    it('creates the person and a new organisation they administer, and answers a working session', async () => {
      const body = signupBody({ email: '  Ada.Mixed@Example.TEST ' });
      const res = await request(t.baseUrl).post('/api/auth/signup').send(body).expect(201);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        user: { id: expect.stringMatching(UUID_RE), email: 'ada.mixed@example.test', name: 'Ada Lovelace' },
        organization: { id: expect.stringMatching(UUID_RE), name: 'Analytical Engines' },
        role: 'admin',
        accessToken: expect.stringMatching(JWT_RE),
        tokenType: 'Bearer',
        expiresIn: 43200,
      });
      expect(JSON.stringify(res.body)).not.toContain(body.password);
      const me = await request(t.baseUrl).get('/api/me').auth(res.body.accessToken, { type: 'bearer' }).expect(200);
      expect(me.body.memberships).toEqual([{ organization: res.body.organization, role: 'admin' }]);
      const [event] = await t.dataSource.query(
        `SELECT actor_type, actor_id, action, target_id, metadata FROM audit_events WHERE organization_id = $1`,
        [res.body.organization.id],
      );
      expect(event).toEqual({
        actor_type: 'user',
        actor_id: res.body.user.id,
        action: 'organization.created',
        target_id: res.body.organization.id,
        metadata: { name: 'Analytical Engines', via: 'signup', adminUserId: res.body.user.id },
      });
    });

    it('stores only an Argon2id hash of the password', async () => {
      const body = signupBody();
      const res = await request(t.baseUrl).post('/api/auth/signup').send(body).expect(201);
      const [row] = await t.dataSource.query('SELECT password_hash FROM users WHERE id = $1', [res.body.user.id]);
      expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(row.password_hash).not.toContain(body.password);
    });

    it('refuses a taken email, case-insensitively, with 409', async () => {
      const first = signupBody();
      await request(t.baseUrl).post('/api/auth/signup').send(first).expect(201);
      const res = await request(t.baseUrl)
        .post('/api/auth/signup')
        .send(signupBody({ email: first.email.toUpperCase() }))
        .expect(409);
      expect(res.body).toEqual({
        statusCode: 409,
        message: 'An account with this email already exists',
        error: 'Conflict',
        code: 'email_taken',
      });
    });

    it('lets exactly one of several parallel signups with one email through', async () => {
      const email = `race-${randomUUID().slice(0, 8)}@example.test`;
      const results = await Promise.all(
        Array.from({ length: 4 }, () => request(t.baseUrl).post('/api/auth/signup').send(signupBody({ email }))),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
      const [{ count }] = await t.dataSource.query('SELECT count(*)::int AS count FROM users WHERE lower(email) = $1', [email]);
      expect(count).toBe(1);
    });

    it.each([
      ['email', { email: 'not-an-email' }, 'email must be an email address'],
      ['email', { email: undefined }, 'email must be an email address'],
      ['password', { password: 'short pw 11' }, 'password must be longer than or equal to 12 characters'],
      ['password', { password: 12345678901234 }, 'password must be a string'],
      ['name', { name: '   ' }, 'name should not be empty'],
      ['organizationName', { organizationName: 'x'.repeat(201) }, 'organizationName must be shorter than or equal to 200 characters'],
      ['role', { role: 'admin' }, 'property role should not exist'],
    ])('answers 400 naming %s', async (_field, overrides, message) => {
      const res = await request(t.baseUrl).post('/api/auth/signup').send(signupBody(overrides)).expect(400);
      expect(res.body).toEqual({ statusCode: 400, message: expect.arrayContaining([message]), error: 'Bad Request' });
    });

    it('answers 400 to malformed JSON, never 500', async () => {
      const res = await request(t.baseUrl).post('/api/auth/signup').set('Content-Type', 'application/json').send('{"email":');
      expect(res.status).toBe(400);
    });
  });

  describe('POST /api/auth/login', () => {
    it('answers a session JWT for the right email (any case) and password', async () => {
      const user = await createUser(t.dataSource, { email: `login-${randomUUID().slice(0, 8)}@example.test` });
      const res = await request(t.baseUrl)
        .post('/api/auth/login')
        .send({ email: user.email.toUpperCase(), password: user.password })
        .expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ accessToken: expect.stringMatching(JWT_RE), tokenType: 'Bearer', expiresIn: 43200 });
      const me = await request(t.baseUrl).get('/api/me').auth(res.body.accessToken, { type: 'bearer' }).expect(200);
      expect(me.body.user.id).toBe(user.id);
    });

    it('answers the same 401 to a wrong password and to an unknown email', async () => {
      const user = await createUser(t.dataSource);
      const wrong = await request(t.baseUrl).post('/api/auth/login').send({ email: user.email, password: `${user.password}x` }).expect(401);
      const unknown = await request(t.baseUrl)
        .post('/api/auth/login')
        .send({ email: `nobody-${randomUUID()}@example.test`, password: user.password })
        .expect(401);
      const expected = { statusCode: 401, message: 'Invalid email or password', error: 'Unauthorized', code: 'invalid_credentials' };
      expect(wrong.body).toEqual(expected);
      expect(unknown.body).toEqual(expected);
    });

    it.each([
      ['email', { password: 'whatever whatever' }, 'email should not be empty'],
      ['password', { email: 'a@example.test' }, 'password should not be empty'],
      ['password', { email: 'a@example.test', password: ['x'] }, 'password must be a string'],
    ])('answers 400 naming %s', async (_field, body, message) => {
      const res = await request(t.baseUrl).post('/api/auth/login').send(body).expect(400);
      expect(res.body.message).toEqual(expect.arrayContaining([message]));
    });
  });

  describe('GET /api/me', () => {
    it('answers the person and every membership with its role', async () => {
      const a = await signupOverHttp(t, { name: 'Grace Hopper' });
      const b = await signupOverHttp(t);
      await t.dataSource.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'member')`, [
        b.organization.id,
        a.user.id,
      ]);
      const res = await request(t.baseUrl).get('/api/me').auth(a.accessToken, { type: 'bearer' }).expect(200);
      expect(res.body).toEqual({
        user: { id: a.user.id, email: a.user.email, name: 'Grace Hopper', createdAt: expect.any(String) },
        memberships: [
          { organization: a.organization, role: 'admin' },
          { organization: b.organization, role: 'member' },
        ],
      });
      expect(JSON.stringify(res.body)).not.toMatch(/password|scrypt|argon2/i);
    });

    it('is for sessions only: an rk_ key gets 403, a dga_ token 403, nothing 401', async () => {
      const a = await signupOverHttp(t);
      const key = await createApiKey(t.dataSource, a.organization.id, ['projects:read']);
      const agent = await createProjectWithToken(t.dataSource);
      const viaKey = await request(t.baseUrl).get('/api/me').auth(key.key, { type: 'bearer' }).expect(403);
      expect(viaKey.body).toEqual(REST_ERRORS.sessionOnly);
      const viaAgent = await request(t.baseUrl).get('/api/me').auth(agent.token, { type: 'bearer' }).expect(403);
      expect(viaAgent.body).toEqual(REST_ERRORS.agentTokenOnRest);
      const none = await request(t.baseUrl).get('/api/me').expect(401);
      expect(none.body).toEqual(REST_ERRORS.missingCredential);
    });

    it('refuses a forged, expired or tampered session JWT with 401', async () => {
      const a = await signupOverHttp(t);
      const [header, payload] = a.accessToken.split('.');
      const tampered = `${header}.${payload}.${'A'.repeat(43)}`;
      const res = await request(t.baseUrl).get('/api/me').auth(tampered, { type: 'bearer' }).expect(401);
      expect(res.body).toEqual(REST_ERRORS.invalidCredential);
    });

    it('does not take the session from the cookie on REST (no ambient authority)', async () => {
      const a = await signupOverHttp(t);
      await request(t.baseUrl).get('/api/me').set('Cookie', `ag_session=${a.accessToken}`).expect(401);
    });
  });
});

describe('signup switched off (SIGNUP_ENABLED=false)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_ENABLED: 'false' });
  });
  afterAll(() => t.close());

  it('refuses POST /api/auth/signup with 403 and creates nothing', async () => {
    const body = signupBody();
    const res = await request(t.baseUrl).post('/api/auth/signup').send(body).expect(403);
    expect(res.body).toEqual({
      statusCode: 403,
      message: 'Sign-up is disabled on this deployment; an administrator creates accounts',
      error: 'Forbidden',
      code: 'signup_disabled',
    });
    const rows = await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [body.email]);
    expect(rows).toHaveLength(0);
  });

  it('still lets existing people log in', async () => {
    const user = await createUser(t.dataSource);
    await request(t.baseUrl).post('/api/auth/login').send({ email: user.email, password: user.password }).expect(200);
  });
});
