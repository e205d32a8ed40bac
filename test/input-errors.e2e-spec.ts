import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createTeam } from './factories/rest';
import { startTestApp, TestApp } from './helpers/test-app';

const PASSWORD = 'correct horse battery staple';

/**
 * What a person sees when a request is wrong: the field named, one message per field, never a
 * value they sent (a password above all); the media type named when the body is not JSON; the
 * methods a path takes when the method is wrong.
 */
describe('input errors name what is wrong without repeating what was sent', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_RATE_LIMIT_PER_HOUR: '100000' });
  });
  afterAll(() => t.close());

  it.each(['/api/auth/login', '/api/auth/signup'])('%s with curl -d (a form) answers 415 naming Content-Type: application/json', async (path) => {
    const body = JSON.stringify({ email: 'ada@example.test', password: PASSWORD, name: 'Ada', organizationName: 'O' });
    const res = await request(t.baseUrl).post(path).set('Content-Type', 'application/x-www-form-urlencoded').send(body);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      statusCode: 415,
      message: 'This route takes a JSON body: send it with Content-Type: application/json',
      error: 'Unsupported Media Type',
    });
    expect(res.text).not.toContain(PASSWORD);
    const text = await request(t.baseUrl).post(path).set('Content-Type', 'text/plain').send(body);
    expect(text.status).toBe(415);
  });

  it('the OAuth token endpoint still takes a form', async () => {
    const res = await request(t.baseUrl).post('/api/agent/oauth/token').type('form').send('grant_type=authorization_code&code=x&client_id=y');
    expect(res.status).not.toBe(415);
    expect(res.body.error).toBeDefined();
  });

  it('no 4xx body repeats a submitted value, nor a key that does not read as a field name', async () => {
    const secret = `s3cret-${randomUUID()}`;
    const cases: [string, Record<string, unknown>][] = [
      ['/api/auth/signup', { email: secret, password: secret, name: secret, organizationName: secret }],
      ['/api/auth/signup', { email: 'a@example.test', password: [secret], name: { secret }, organizationName: 7 }],
      ['/api/auth/login', { email: [secret], password: { secret } }],
      ['/api/auth/login', { email: 'a@example.test', password: secret, [secret]: secret }],
    ];
    for (const [path, body] of cases) {
      const res = await request(t.baseUrl).post(path).send(body);
      expect(res.status).toBe(400);
      expect(res.text).not.toContain(secret);
    }
  });

  it('gives one message per field', async () => {
    const team = await createTeam(t);
    const keys = `/api/organizations/${team.organization.id}/api-keys`;
    const auth = { Authorization: `Bearer ${team.admin.jwt}` };
    const missing = await request(t.baseUrl).post(keys).set(auth).send({ permissions: ['projects:read'] }).expect(400);
    expect(missing.body.message).toEqual(['name should not be empty']);
    const notArray = await request(t.baseUrl).post(keys).set(auth).send({ name: 'k', permissions: 'projects:read' }).expect(400);
    expect(notArray.body.message).toEqual(['permissions must be an array']);
    const tomorrow = await request(t.baseUrl).post(keys).set(auth).send({ name: 'k', permissions: ['projects:read'], expiresAt: 'tomorrow' }).expect(400);
    expect(tomorrow.body.message).toEqual(['expiresAt must be an ISO 8601 date-time']);
    const projects = `/api/organizations/${team.organization.id}/projects`;
    const empty = await request(t.baseUrl).post(projects).set(auth).send({}).expect(400);
    expect(empty.body.message).toEqual(['name should not be empty']);
    const signup = await request(t.baseUrl).post('/api/auth/signup').send({}).expect(400);
    expect(signup.body.message).toHaveLength(4);
  });

  it('a method a path does not take answers 405 with Allow', async () => {
    const login = await request(t.baseUrl).get('/api/auth/login');
    expect(login.status).toBe(405);
    expect(login.headers.allow).toBe('POST');
    expect(login.body).toEqual({ statusCode: 405, message: 'This route accepts POST, not GET', error: 'Method Not Allowed' });
    const me = await request(t.baseUrl).delete('/api/me');
    expect(me.status).toBe(405);
    expect(me.headers.allow).toBe('GET, HEAD');
    const team = await createTeam(t);
    const project = await request(t.baseUrl).put(`/api/organizations/${team.organization.id}/projects`).set('Authorization', `Bearer ${team.admin.jwt}`);
    expect(project.status).toBe(405);
    expect(project.headers.allow).toBe('GET, HEAD, POST');
    await request(t.baseUrl).get('/api/no-such-route').expect(404);
  });
});
