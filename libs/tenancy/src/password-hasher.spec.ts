import { randomBytes, scryptSync } from 'node:crypto';
import { HASH_CONCURRENCY, HASH_QUEUE_LIMIT, hashPassword, PasswordHashingBusyError, passwordNeedsRehash, verifyPassword } from './password-hasher';

/** A hash in the form accounts created before Argon2id still hold. */
function legacyScrypt(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}

describe('password hasher', () => {
  it('hashes with Argon2id at the OWASP parameters and verifies the right password only', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(stored).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapl', stored)).resolves.toBe(false);
    expect(passwordNeedsRehash(stored)).toBe(false);
  });

  it('salts each hash', async () => {
    expect(await hashPassword('same password here')).not.toBe(await hashPassword('same password here'));
  });

  it('still verifies the former scrypt hashes, and marks them for re-hashing', async () => {
    const stored = legacyScrypt('an older password here');
    await expect(verifyPassword('an older password here', stored)).resolves.toBe(true);
    await expect(verifyPassword('an older password her', stored)).resolves.toBe(false);
    expect(passwordNeedsRehash(stored)).toBe(true);
  });

  it('marks Argon2id hashes made with weaker parameters for re-hashing', () => {
    expect(passwordNeedsRehash('$argon2id$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaGhhc2g')).toBe(true);
  });

  it('refuses malformed stored hashes', async () => {
    await expect(verifyPassword('x', 'plain')).resolves.toBe(false);
    await expect(verifyPassword('x', 'bcrypt$1$2$3$a$b')).resolves.toBe(false);
    await expect(verifyPassword('x', '$argon2id$v=19$broken')).resolves.toBe(false);
    await expect(verifyPassword('x', 'scrypt$99999999$8$1$c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5')).resolves.toBe(false);
  });

  it('bounds concurrent hashing: past the running and waiting slots a caller is refused at once (503, Retry-After), and the queue then drains', async () => {
    const total = HASH_CONCURRENCY + HASH_QUEUE_LIMIT + 5;
    const results = await Promise.allSettled(Array.from({ length: total }, (_, i) => hashPassword(`password number ${i}`)));
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      const error = (r as PromiseRejectedResult).reason as PasswordHashingBusyError;
      expect(error).toBeInstanceOf(PasswordHashingBusyError);
      expect(error.kind).toBe('unavailable');
      expect(error.retryAfterSeconds).toBe(1);
    }
    // Every slot is free again: the full number runs without refusal.
    const stored = await hashPassword('stored password');
    const again = await Promise.allSettled(Array.from({ length: HASH_CONCURRENCY + HASH_QUEUE_LIMIT }, () => verifyPassword('x', stored)));
    expect(again.every((r) => r.status === 'fulfilled')).toBe(true);
  });
});
