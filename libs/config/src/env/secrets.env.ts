import { createHash } from 'node:crypto';
import { Transform } from 'class-transformer';
import { IsOptional, IsString } from 'class-validator';
import { EnvBase, toStr } from './env-transforms';
import { PUBLISHED_SECRET_SHA256 } from './published-secrets';

/**
 * `SECRETS_KEYS`: the key ring that encrypts stored outbound secrets (SPEC §10, "Stored outbound
 * secrets"): `<id>:<base64 of 32 bytes>`, comma-separated, the first one current.
 */
export function SecretVariables<B extends EnvBase>(Base: B) {
  class SecretVariables extends Base {
    @Transform(toStr)
    @IsOptional()
    @IsString()
    SECRETS_KEYS?: string;
  }
  return SecretVariables;
}

export interface SecretsKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** The ring of `SECRETS_KEYS` in order (the first current), and a sentence per problem; never the key material. */
export function parseSecretsKeys(value: string): { keys: SecretsKey[]; problems: string[] } {
  const keys: SecretsKey[] = [];
  const problems: string[] = [];
  const entries = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (entries.length === 0) problems.push('SECRETS_KEYS: no key (expected <id>:<base64 of 32 bytes>, comma-separated)');
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    const material = colon < 0 ? entry : entry.slice(colon + 1);
    const where = `SECRETS_KEYS: entry ${index + 1}`;
    if (!KEY_ID.test(id)) {
      problems.push(`${where} must start with a key id (1 to 32 letters, digits, - or _) and a colon, as in k1:<base64 of 32 bytes>`);
      return;
    }
    const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(material) ? Buffer.from(material, 'base64') : Buffer.alloc(0);
    if (key.length !== 32) {
      problems.push(`${where} (id ${id}): the key must be 32 bytes in base64 (openssl rand -base64 32)`);
      return;
    }
    if (keys.some((k) => k.id === id)) {
      problems.push(`${where}: the key id ${id} appears twice`);
      return;
    }
    keys.push({ id, key });
  });
  return { keys, problems };
}

/** The secrets of one configuration whose values the repository publishes, by variable name. */
export interface SecretValues {
  SESSION_SECRET?: string;
  SECRETS_KEYS?: string;
  METRICS_TOKEN?: string;
  DATABASE_URL?: string;
}

export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/**
 * The values that count as one secret: the whole value, and for `SECRETS_KEYS` each key's
 * material, for `DATABASE_URL` its password (decoded).
 */
export function secretParts(name: keyof SecretValues, value: string): string[] {
  if (name === 'SECRETS_KEYS') {
    return value.split(',').map((entry) => entry.trim()).filter(Boolean).flatMap((entry) => [entry, entry.slice(entry.indexOf(':') + 1)]);
  }
  if (name === 'DATABASE_URL') {
    try {
      const password = new URL(value).password;
      return password ? [decodeURIComponent(password)] : [];
    } catch {
      return [];
    }
  }
  return [value];
}

/**
 * In production, a secret whose value this repository publishes (an example in `deploy/`,
 * `docs/`, `docker-compose.yml` or `.env.example`, then or now) is refused: anyone can read it.
 * Only SHA-256 hashes of those values ship (`published-secrets.ts`); the sentence never repeats
 * the value.
 */
export function publishedSecretProblems(env: SecretValues): string[] {
  const problems: string[] = [];
  for (const name of ['SESSION_SECRET', 'SECRETS_KEYS', 'METRICS_TOKEN', 'DATABASE_URL'] as const) {
    const value = env[name];
    if (!value) continue;
    if (secretParts(name, value).some((part) => PUBLISHED_SECRET_SHA256.has(sha256(part)))) {
      const what = name === 'DATABASE_URL' ? 'its password is' : name === 'SECRETS_KEYS' ? 'a key is' : 'it is';
      problems.push(
        `${name}=(hidden): ${what} a value published in the Agent Gateway repository (an example in deploy/, docs/, docker-compose.yml or .env.example); ` +
          `anyone can read it, so it is refused when NODE_ENV=production. Generate your own (${name === 'DATABASE_URL' ? 'a random database password' : name === 'SECRETS_KEYS' ? 'k1:$(openssl rand -base64 32)' : 'openssl rand -base64 48'})`,
      );
    }
  }
  return problems;
}
