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

/** Whether a stored value is one of ours (`v1:<key id>:…`) rather than a secret still in clear. */
export function isEncryptedSecret(stored: string): boolean {
  return /^v1:[A-Za-z0-9_-]{1,32}:[^:]*:[^:]*:[^:]+$/.test(stored);
}

/** The key id a stored value was encrypted under (null: not encrypted). */
export function keyIdOf(stored: string): string | null {
  return isEncryptedSecret(stored) ? stored.split(':')[1] : null;
}

/** A stored secret, where it is, for the checks and the re-encryption at start and by `secrets-rotate`. */
export interface StoredSecret {
  place: SecretPlace;
  stored: string;
}

/**
 * Secures one owner's stored secrets (at start-up, and with `rotate` for `secrets-rotate`): a
 * value under a key id missing from the ring fails, naming the place and the key id (never the
 * value); a value still in clear is encrypted under the current key (clear secrets are encrypted
 * at the first start with a key), and with `rotate` a value under an older key is re-encrypted.
 * `replace` writes one change only if the stored value is still `was` (another instance may have
 * done it first). Answers how many values it changed.
 */
export async function secureStoredSecrets(
  ring: readonly SecretsKey[],
  secrets: readonly StoredSecret[],
  replace: (place: SecretPlace, was: string, stored: string) => Promise<unknown>,
  options: { rotate: boolean },
): Promise<number> {
  const current = ring[0]?.id;
  let changed = 0;
  for (const { place, stored } of secrets) {
    const keyId = keyIdOf(stored);
    if (keyId !== null && !ring.some((k) => k.id === keyId)) {
      throw new Error(
        `${place.table}.${place.column} of row ${place.rowId} is encrypted under key ${keyId}, which is not in SECRETS_KEYS: add that key back to the ring (after the current one) to start`,
      );
    }
    if (keyId === null) await replace(place, stored, encryptSecret(ring, stored, place));
    else if (options.rotate && keyId !== current) await replace(place, stored, encryptSecret(ring, decryptSecret(ring, stored, place), place));
    else continue;
    changed++;
  }
  return changed;
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

/**
 * A key for one purpose derived (HKDF-SHA-256, `label` as the info) from a key of the ring, so
 * that a purpose's key (e.g. `mcp-request-state`) never doubles as the key of stored secrets.
 */
export function derivedKey(key: SecretsKey, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key.key, Buffer.alloc(0), label, 32));
}
