import { createHash, timingSafeEqual } from 'node:crypto';
import { AGENT_PERMISSION_NAMES, AgentPermission, isAgentPermission } from '@app/capabilities';

export { singleParam } from '@app/web';

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER_RE = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is BASE64URL(SHA-256(verifier)) without padding: exactly 43 characters. */
const S256_CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

export function isValidCodeChallenge(challenge: string): boolean {
  return S256_CHALLENGE_RE.test(challenge);
}

/** True when `verifier` is well formed and hashes to `challenge` (S256), compared in constant time. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER_RE.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/**
 * The agent permissions named in a `scope` string, in catalogue order. Unknown scopes and
 * `offline_access` are ignored (clients such as Claude add every advertised scope and
 * `offline_access`); `undefined` when the string names no known permission.
 */
export function permissionsFromScope(scope: string | undefined): AgentPermission[] | undefined {
  if (scope === undefined) return undefined;
  const named = new Set(scope.split(' ').filter(isAgentPermission));
  const permissions = AGENT_PERMISSION_NAMES.filter((p) => named.has(p));
  return permissions.length ? permissions : undefined;
}

/** Every scope token of a `scope` string (RFC 6749 §3.3: space-delimited, case-sensitive). */
export function scopeTokens(scope: string): string[] {
  return scope.split(' ').filter(Boolean);
}

export function scopeString(permissions: readonly AgentPermission[]): string {
  return AGENT_PERMISSION_NAMES.filter((p) => permissions.includes(p)).join(' ');
}

/**
 * Whether `resource` names this server's MCP endpoint (RFC 8707): exactly `{BASE_URL}/api/mcp`,
 * one trailing slash tolerated (clients send both forms).
 */
export function isOwnResource(resource: string, mcpResourceUrl: string): boolean {
  return resource === mcpResourceUrl || resource === `${mcpResourceUrl}/`;
}

/**
 * HTTP Basic client credentials (RFC 6749 §2.3.1): `client_id` and `client_secret` are each
 * form-url-encoded before being joined with `:` and base64-encoded, so each half is decoded
 * with `+` as a space. `undefined` when the header is not a well-formed Basic header.
 */
export function parseBasicCredentials(header: string): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic[ ]+([A-Za-z0-9+/=]+)[ ]*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** Constant-time comparison of two SHA-256 hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

