import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import request from 'supertest';
import { createUser } from './factories';
import { startTestApp, TestApp } from './helpers/test-app';

/** SPEC §8: a session JWT carries `exp`, `iat`, `sub` and its id `jti`; one without them is refused, even signed with the real key. */
describe('session JWT claims', () => {
  let t: TestApp;
  let userId: string;
  beforeAll(async () => {
    t = await startTestApp();
    userId = (await createUser(t.dataSource)).id;
  });
  afterAll(() => t.close());

  /** A session JWT signed with the real key; its `jti` (when it has one) is a live `sessions` row of the person, unless `withRow` is false. */
  async function forged(omit: 'exp' | 'iat' | 'sub' | 'jti' | 'none', withRow = true): Promise<string> {
    const key = new TextEncoder().encode(t.config.sessionSecret);
    const jti = randomUUID();
    if (withRow && omit !== 'jti') {
      await t.dataSource.query(`INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES ($1, $2, now(), now() + interval '1 hour')`, [jti, userId]);
    }
    let jwt = new SignJWT({ typ: 'session' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(t.config.issuer)
      .setAudience(`${t.config.issuer}/api`);
    if (omit !== 'sub') jwt = jwt.setSubject(userId);
    if (omit !== 'iat') jwt = jwt.setIssuedAt();
    if (omit !== 'exp') jwt = jwt.setExpirationTime('1h');
    if (omit !== 'jti') jwt = jwt.setJti(jti);
    return jwt.sign(key);
  }

  it('accepts a session signed with the real key that carries every claim', async () => {
    const jwt = await forged('none');
    await request(t.baseUrl).get('/api/me').auth(jwt, { type: 'bearer' }).expect(200);
    // The dashboard opens for it (this person belongs to no organisation yet).
    const page = await request(t.baseUrl).get('/').set('Cookie', `ag_session=${jwt}`).expect(200);
    expect(page.text).toContain('No organisation yet');
  });

  it('refuses a session signed with the real key whose jti is no session row (SPEC §10: a session is live while its row exists)', async () => {
    const jwt = await forged('none', false);
    await request(t.baseUrl).get('/api/me').auth(jwt, { type: 'bearer' }).expect(401);
    const page = await request(t.baseUrl).get('/').set('Cookie', `ag_session=${jwt}`);
    expect(page.status).toBe(303);
  });

  it.each(['exp', 'iat', 'sub', 'jti'] as const)('refuses a session without %s (REST 401, page treats it as signed out)', async (claim) => {
    const jwt = await forged(claim);
    await request(t.baseUrl).get('/api/me').auth(jwt, { type: 'bearer' }).expect(401);
    const page = await request(t.baseUrl).get('/').set('Cookie', `ag_session=${jwt}`);
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/login?next=%2F');
  });
});
