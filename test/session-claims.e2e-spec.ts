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

  function forged(omit: 'exp' | 'iat' | 'sub' | 'jti' | 'none'): Promise<string> {
    const key = new TextEncoder().encode(t.config.sessionSecret);
    let jwt = new SignJWT({ typ: 'session' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(t.config.issuer)
      .setAudience(`${t.config.issuer}/api`);
    if (omit !== 'sub') jwt = jwt.setSubject(userId);
    if (omit !== 'iat') jwt = jwt.setIssuedAt();
    if (omit !== 'exp') jwt = jwt.setExpirationTime('1h');
    if (omit !== 'jti') jwt = jwt.setJti(randomUUID());
    return jwt.sign(key);
  }

  it('accepts a session signed with the real key that carries every claim', async () => {
    const jwt = await forged('none');
    await request(t.baseUrl).get('/api/me').auth(jwt, { type: 'bearer' }).expect(200);
    // The dashboard opens for it (this person belongs to no organisation yet).
    const page = await request(t.baseUrl).get('/').set('Cookie', `ag_session=${jwt}`).expect(200);
    expect(page.text).toContain('No organisation yet');
  });

  it.each(['exp', 'iat', 'sub', 'jti'] as const)('refuses a session without %s (REST 401, page treats it as signed out)', async (claim) => {
    const jwt = await forged(claim);
    await request(t.baseUrl).get('/api/me').auth(jwt, { type: 'bearer' }).expect(401);
    const page = await request(t.baseUrl).get('/').set('Cookie', `ag_session=${jwt}`);
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/login?next=%2F');
  });
});
