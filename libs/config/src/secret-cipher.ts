import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SecretsKey } from './env/secrets.env';

/**
 * Stored outbound secrets (SPEC §10, "Stored outbound secrets"): AES-256-GCM under the current
 * `SECRETS_KEYS` key, the additional data binding the ciphertext to its table, column and row,
 * so a value copied to another row or column does not decrypt. Stored as
 * `v1:<key id>:<iv>:<ciphertext>:<tag>` (base64url parts). Node's `crypto` is the library here:
 * a dozen lines need no package.
 */
export interface SecretPlace {
  table: string;
  column: string;
  rowId: string;
}

/** Where no `SECRETS_KEYS` is set (never in production), a key derived from the session secret. */
export const DERIVED_SECRETS_KEY_ID = 'session';

/** The key ring to use: `SECRETS_KEYS`, or one key derived (HKDF-SHA-256) from the session secret. */
export function secretsKeyRing(keys: readonly SecretsKey[], sessionSecret: string): readonly SecretsKey[] {
  if (keys.length > 0) return keys;
  const key = Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), 'secrets-at-rest', 32));
  return [{ id: DERIVED_SECRETS_KEY_ID, key }];
}

/**
 * A key for one purpose (`label`: `audit-checkpoint`, `mcp-request-state`, …) derived with
 * HKDF-SHA-256 from the ring's current key, and that key's id: a new current key is a new
 * derived key, so whatever names its key can still be checked with the old one's public half.
 */
export function deriveFromCurrentKey(ring: readonly SecretsKey[], label: string, length = 32): { keyId: string; key: Buffer } {
  const current = ring[0];
  if (!current) throw new Error('no secrets key to derive from');
  return { keyId: current.id, key: Buffer.from(hkdfSync('sha256', current.key, Buffer.alloc(0), label, length)) };
}

function additionalData(place: SecretPlace): Buffer {
  return Buffer.from(JSON.stringify([place.table, place.column, place.rowId]), 'utf8');
}

/** Encrypts under the ring's first (current) key. */
export function encryptSecret(ring: readonly SecretsKey[], plaintext: string, place: SecretPlace): string {
  const current = ring[0];
  if (!current) throw new Error('no secrets key to encrypt with');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', current.key, iv);
  cipher.setAAD(additionalData(place));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', current.id, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(':');
}

/** Decrypts a stored value; throws (without the value) when its key is not in the ring or it does not authenticate. */
export function decryptSecret(ring: readonly SecretsKey[], stored: string, place: SecretPlace): string {
  const [version, keyId, iv, ciphertext, tag] = stored.split(':');
  if (version !== 'v1' || tag === undefined) throw new Error(`the stored ${place.table}.${place.column} is not an encrypted secret`);
  const key = ring.find((k) => k.id === keyId);
  if (!key) throw new Error(`the stored ${place.table}.${place.column} is encrypted under key ${keyId}, which is not in SECRETS_KEYS`);
  const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(additionalData(place));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
