import { ClientMetadataError } from './client-metadata.errors';

/** Longest `client_id` URL accepted (the same bound as a redirect URI). */
export const MAX_CLIENT_ID_URL_LENGTH = 2000;

/**
 * Whether a `client_id` names a Client ID Metadata Document (an `https` URL; `http` too when
 * loopback documents are allowed for development) rather than a registered client (a UUID).
 * Whether the URL is acceptable is `parseClientIdUrl`'s question.
 */
export function isClientIdUrl(clientId: string, allowLoopback = false): boolean {
  return /^https:\/\//i.test(clientId) || (allowLoopback && /^http:\/\//i.test(clientId));
}

/**
 * The `client_id` URL, checked (draft-ietf-oauth-client-id-metadata-document §3): `https`
 * (`http` only with the development switch), a host, a path other than `/`, no user info, no
 * fragment, no query (the URL is public: stored, logged and shown), no `.`/`..` segments, and
 * written in its canonical form, so that one client has one identifier and the document's
 * `client_id` can be compared byte for byte. Throws a `ClientMetadataError` naming the problem.
 */
export function parseClientIdUrl(clientId: string, allowLoopback: boolean): URL {
  const problem = clientIdUrlProblem(clientId, allowLoopback);
  if (problem) throw new ClientMetadataError(`The client_id URL ${problem}`);
  return new URL(clientId);
}

function clientIdUrlProblem(raw: string, allowLoopback: boolean): string | undefined {
  if (raw.length > MAX_CLIENT_ID_URL_LENGTH) return `must be at most ${MAX_CLIENT_ID_URL_LENGTH} characters`;
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) return 'must not contain whitespace or control characters';
  if (!isClientIdUrl(raw, allowLoopback)) {
    return allowLoopback ? 'must use https (or http for development)' : 'must use https';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a valid URL';
  }
  if (url.username || url.password || /^[a-z]+:\/\/[^/?#]*@/i.test(raw)) return 'must not contain user info';
  if (raw.includes('#')) return 'must not contain a fragment';
  if (raw.includes('?')) return 'must not contain a query';
  if (!url.hostname) return 'must name a host';
  const rawPath = raw.replace(/^[a-z]+:\/\/[^/]*/i, '');
  if (rawPath.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) return 'must not contain . or .. path segments';
  if (url.pathname === '/' || url.pathname === '') return 'must have a path (e.g. https://app.example.com/oauth/client.json)';
  if (url.href !== raw) return `must be written in canonical form (${canonicalHint(raw, url)})`;
  return undefined;
}

/** Names the first difference from the canonical form, without echoing the URL itself. */
function canonicalHint(raw: string, url: URL): string {
  const scheme = raw.slice(0, raw.indexOf(':'));
  if (scheme !== scheme.toLowerCase()) return 'lower-case scheme';
  const authority = /^[a-z]+:\/\/([^/]*)/i.exec(raw)?.[1] ?? '';
  if (authority !== url.host) return 'lower-case host, no default port';
  return 'percent-encoding as a URL parser writes it';
}
