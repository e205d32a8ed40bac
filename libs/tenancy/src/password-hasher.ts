import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { scrypt as scryptCb, ScryptOptions, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { UnavailableError } from '@app/common';

/**
 * Argon2id at the OWASP Password Storage Cheat Sheet's parameters (19 MiB, 2 passes, one lane).
 * `Algorithm` is a `const enum` the binding does not export at run time, hence the literal.
 */
const ARGON2_OPTIONS = { algorithm: 2 as Algorithm, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
/** The PHC prefix of a hash made with today's parameters; any other stored hash is re-hashed at the next sign-in. */
const CURRENT_PREFIX = `$argon2id$v=19$m=${ARGON2_OPTIONS.memoryCost},t=${ARGON2_OPTIONS.timeCost},p=${ARGON2_OPTIONS.parallelism}$`;

/**
 * Every password hash and check of the process goes through one small queue: at most
 * `HASH_CONCURRENCY` run at once (each takes 19 MiB and a core for tens of milliseconds), at most
 * `HASH_QUEUE_LIMIT` wait, and past that the caller is answered at once (503 with `Retry-After`)
 * instead of piling up work that would slow every sign-in of the instance.
 */
export const HASH_CONCURRENCY = Math.max(2, Math.min(4, availableParallelism()));
export const HASH_QUEUE_LIMIT = 32;

export class PasswordHashingBusyError extends UnavailableError {
  constructor() {
    super('password_hashing_busy', 'Too many password checks are in progress on this server; try again in a moment', 1);
  }
}

let hashesRunning = 0;
const hashesWaiting: (() => void)[] = [];

/** Runs `work` in a slot of the hashing queue (see `HASH_CONCURRENCY`). */
async function inHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (hashesRunning >= HASH_CONCURRENCY) {
    if (hashesWaiting.length >= HASH_QUEUE_LIMIT) throw new PasswordHashingBusyError();
    await new Promise<void>((resolve) => hashesWaiting.push(resolve));
  } else {
    hashesRunning++;
  }
  try {
    return await work();
  } finally {
    // A waiting caller takes the slot over; otherwise it frees up.
    const next = hashesWaiting.shift();
    if (next) next();
    else hashesRunning--;
  }
}

/** A PHC-format Argon2id hash (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) with a random salt. */
export async function hashPassword(password: string): Promise<string> {
  return inHashSlot(() => hash(password.normalize('NFKC'), ARGON2_OPTIONS));
}

/**
 * Constant-time check of a password against a stored hash: Argon2id, or the former
 * `scrypt$N$r$p$salt$hash` form still held by accounts that have not signed in since. False for
 * any malformed hash.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const normalized = password.normalize('NFKC');
  if (stored.startsWith('$argon2id$')) return inHashSlot(() => verify(stored, normalized).catch(() => false));
  if (stored.startsWith('scrypt$')) return inHashSlot(() => verifyLegacyScrypt(normalized, stored));
  return false;
}

/** Whether a stored hash was made with other parameters or another algorithm than today's. */
export function passwordNeedsRehash(stored: string): boolean {
  return !stored.startsWith(CURRENT_PREFIX);
}

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );

/** The hashes written before Argon2id: scrypt with the parameters stored in the hash (N up to 2^17). */
async function verifyLegacyScrypt(password: string, stored: string): Promise<boolean> {
  const [, n, r, p, saltText, keyText] = stored.split('$');
  const N = Number(n);
  const R = Number(r);
  const P = Number(p);
  if (!saltText || !keyText || ![N, R, P].every((v) => Number.isInteger(v) && v > 0) || N > 2 ** 17 || R > 32 || P > 16) return false;
  const expected = Buffer.from(keyText, 'base64url');
  if (expected.length < 16) return false;
  const key = await scrypt(password, Buffer.from(saltText, 'base64url'), expected.length, {
    N,
    r: R,
    p: P,
    maxmem: 256 * N * R + 1024 * 1024,
  }).catch(() => null);
  return key !== null && key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * The stored hash of an account without a password (made by single sign-on or SCIM): no
 * password verifies against it (`verifyPassword` answers false for an unknown form).
 */
export const NO_PASSWORD = '!';

export function hasPassword(stored: string): boolean {
  return stored !== NO_PASSWORD;
}
