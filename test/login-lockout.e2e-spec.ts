import { randomBytes, scryptSync } from 'node:crypto';
import request from 'supertest';
import { createUser } from './factories';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * The login limits with their shipped defaults: a third party failing from its own address
 * cannot lock a person out of theirs; and passwords stored in the former scrypt form move to
 * Argon2id at the next successful sign-in.
 */
describe('login: no lock-out by a third party, Argon2id password storage', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  const login = (email: string, password: string, ip: string) =>
    request(t.baseUrl).post('/api/auth/login').set('X-Forwarded-For', ip).send({ email, password });

  it('failures from an attacker’s address lock that address only; the owner signs in from theirs', async () => {
    const owner = await createUser(t.dataSource);
    const attacker = '203.0.113.50';
    for (let i = 0; i < 10; i++) await login(owner.email, `guess number ${i}`, attacker).expect(401);
    const refused = await login(owner.email, owner.password, attacker).expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body.accessToken).toBeUndefined();

    const signedIn = await login(owner.email, owner.password, '198.51.100.77').expect(200);
    expect(signedIn.body.accessToken).toEqual(expect.any(String));
  });

  it('an account still holding a scrypt hash signs in, and its hash is re-made with Argon2id', async () => {
    const user = await createUser(t.dataSource);
    const salt = randomBytes(16);
    const key = scryptSync(user.password.normalize('NFKC'), salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const legacy = ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    await t.dataSource.query('UPDATE users SET password_hash = $1 WHERE id = $2', [legacy, user.id]);

    await login(user.email, 'not the password at all', '198.51.100.78').expect(401);
    const [unchanged] = await t.dataSource.query('SELECT password_hash FROM users WHERE id = $1', [user.id]);
    expect(unchanged.password_hash).toBe(legacy);

    await login(user.email, user.password, '198.51.100.78').expect(200);
    const [row] = await t.dataSource.query('SELECT password_hash FROM users WHERE id = $1', [user.id]);
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.password_hash).not.toContain(user.password);
    await login(user.email, user.password, '198.51.100.78').expect(200);
    await login(user.email, `${user.password}x`, '198.51.100.78').expect(401);
  });
});
