import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Opaque secrets, GitHub-style: `prefix + 43 base62 chars (32 random bytes) + 6 base62 chars of
 * CRC32(prefix + body)`. The checksum lets a typo or a garbage token be refused without a
 * database round trip; the database only ever holds SHA-256 digests.
 */
export const TOKEN_PREFIXES = {
  agentAccess: 'dga_',
  refresh: 'dgr_',
  apiKey: 'rk_',
  authorizationCode: 'dgc_',
  clientSecret: 'dgs_',
  invitation: 'dgi_',
  passwordReset: 'dgp_',
  /** An organisation's SCIM client: valid under `/scim/v2` only. */
  scim: 'scim_',
} as const;
export type TokenPrefix = (typeof TOKEN_PREFIXES)[keyof typeof TOKEN_PREFIXES];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 43; // ceil(256 / log2(62))
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
const BASE62_RE = /^[0-9A-Za-z]+$/;

function toBase62(value: bigint, length: number): string {
  let out = '';
  let n = value;
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(length, '0');
}

function checksum(text: string): string {
  return toBase62(BigInt(crc32(text)), CHECKSUM_LENGTH);
}

/** A new secret with the given prefix. */
export function generateToken(prefix: TokenPrefix): string {
  const body = toBase62(BigInt(`0x${randomBytes(32).toString('hex')}`), BODY_LENGTH);
  const head = prefix + body;
  return head + checksum(head);
}

/** True when `token` has the prefix, the exact length, base62 characters and a matching checksum. */
export function isWellFormedToken(token: string, prefix: TokenPrefix): boolean {
  if (token.length !== prefix.length + BODY_LENGTH + CHECKSUM_LENGTH || !token.startsWith(prefix)) return false;
  const rest = token.slice(prefix.length);
  if (!BASE62_RE.test(rest)) return false;
  const head = token.slice(0, -CHECKSUM_LENGTH);
  return checksum(head) === token.slice(-CHECKSUM_LENGTH);
}

/** SHA-256 hex digest: the only form in which a secret is stored or looked up (one-shot: no hash object per call). */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export type CredentialForm = 'agent_token' | 'api_key' | 'session_jwt' | 'scim_token' | 'unrecognised';

const JWT_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Which kind of credential a presented string claims to be, judged by its form alone. */
export function credentialForm(token: string): CredentialForm {
  if (token.startsWith(TOKEN_PREFIXES.agentAccess)) return 'agent_token';
  if (token.startsWith(TOKEN_PREFIXES.apiKey)) return 'api_key';
  if (token.startsWith(TOKEN_PREFIXES.scim)) return 'scim_token';
  if (JWT_RE.test(token)) return 'session_jwt';
  return 'unrecognised';
}

/**
 * The last four characters of a secret, kept to tell secrets apart in lists: they are part of its
 * checksum, so they reveal nothing of the random body.
 */
export function secretLast4(token: string): string {
  return token.slice(-4);
}

/** How a list shows a secret: its prefix and last four characters (`rk_…a1B2`); the prefix alone (`rk_…`) when they were not kept. */
export function secretHint(prefix: TokenPrefix, last4: string | null | undefined): string {
  return last4 ? `${prefix}…${last4}` : `${prefix}…`;
}
