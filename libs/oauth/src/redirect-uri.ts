/**
 * Redirect-URI rules (SPEC §5 and §8; RFC 6749 §3.1.2, RFC 8252 §7, RFC 9700 §4.1.3):
 * - `https` naming a host in its own text (`https:///cb` is refused, though WHATWG `URL` reads
 *   it as host `cb`);
 * - `http` only on a loopback host (`127.0.0.1`, `[::1]`, `localhost`);
 * - a private-use scheme in reverse-domain form, which contains a dot (`com.example.app:/cb`,
 *   RFC 8252 §7.1), or one listed in `OAUTH_EXTRA_REDIRECT_SCHEMES` (the AI clients that use a
 *   bare name: `cursor`, `vscode`, …);
 * - never a scheme that runs, reads or opens something on the person's machine (`javascript:`,
 *   `data:`, `file:`, `intent:`, `ms-*:`, `chrome*:`, `jar:`, `search-ms:`, …), even if listed;
 * - never a fragment, credentials, control characters or a backslash in the URI.
 * Loopback redirect URIs match a registered one whatever the port (RFC 8252 §7.3); all others
 * match by exact string comparison.
 */

export const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Schemes a redirect URI may never use, whatever the configuration says. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript',
  'data',
  'file',
  'vbscript',
  'intent',
  'jar',
  'search-ms',
  'blob',
  'about',
  'filesystem',
  'view-source',
  'ws',
  'wss',
  'ftp',
]);
/** Scheme families refused by prefix: Windows protocol handlers (`ms-msdt:`, `ms-settings:`, …) and the browser's own pages. */
const FORBIDDEN_SCHEME_PREFIXES = ['ms-', 'chrome'];

/** The private-use schemes allowed without a dot when `OAUTH_EXTRA_REDIRECT_SCHEMES` is unset. */
export const DEFAULT_EXTRA_REDIRECT_SCHEMES = ['cursor', 'vscode', 'vscode-insiders', 'windsurf'] as const;

const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const MAX_REDIRECT_URI_LENGTH = 2000;

/** Whether `scheme` (lower case, without the colon) is one a redirect URI may never use. */
export function isForbiddenRedirectScheme(scheme: string): boolean {
  return FORBIDDEN_SCHEMES.has(scheme) || FORBIDDEN_SCHEME_PREFIXES.some((prefix) => scheme.startsWith(prefix));
}

/**
 * Why `uri` cannot be registered, or undefined when it can. `extraSchemes` are the private-use
 * schemes without a dot that are accepted (lower case).
 */
export function redirectUriProblem(uri: unknown, extraSchemes: readonly string[] = DEFAULT_EXTRA_REDIRECT_SCHEMES): string | undefined {
  if (typeof uri !== 'string' || uri.length === 0) return 'must be a non-empty string';
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (/[\s\u0000-\u001f\u007f]/.test(uri)) return 'must not contain whitespace or control characters';
  if (uri.includes('\\')) return 'must not contain a backslash';
  if (uri.includes('#')) return 'must not contain a fragment';
  const scheme = SCHEME_RE.exec(uri)?.[1]?.toLowerCase();
  if (!scheme) return 'must be an absolute URI with a scheme';
  if (isForbiddenRedirectScheme(scheme)) return `the scheme ${scheme}: is not allowed`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not a valid URI';
  }
  if (url.username || url.password) return 'must not contain credentials';
  if (scheme === 'https' || scheme === 'http') {
    // The host as written: `https:///cb` and `https:/cb` name none, whatever `URL` makes of them.
    if (!/^https?:\/\/[^/?#]/i.test(uri) || !url.hostname) return 'must name a host';
    if (scheme === 'http' && !LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) {
      return 'http is only allowed on a loopback host (127.0.0.1, [::1], localhost); use https';
    }
    return undefined;
  }
  if (scheme.includes('.') || extraSchemes.includes(scheme)) return undefined;
  return (
    `the scheme ${scheme}: is not allowed; use https, http on a loopback host, or a private-use scheme in ` +
    'reverse-domain form such as com.example.app:/callback (RFC 8252 §7.1)'
  );
}

function loopbackParts(uri: string): { host: string; rest: string } | undefined {
  if (!/^http:/i.test(uri)) return undefined;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase();
  if (!LOOPBACK_HOSTS.has(host) || url.username || url.password || url.hash) return undefined;
  return { host, rest: url.pathname + url.search };
}

/**
 * The registered redirect URI that `requested` matches: the identical string, or for a loopback
 * URI one that differs only in the port (RFC 8252 §7.3).
 */
export function matchRedirectUri(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (requested.includes('#')) return false;
  const want = loopbackParts(requested);
  if (!want) return false;
  return registered.some((candidate) => {
    const have = loopbackParts(candidate);
    return have !== undefined && have.host === want.host && have.rest === want.rest;
  });
}

/**
 * The redirect URI with the response parameters appended, keeping its own query byte for byte
 * (RFC 6749 §3.1.2). Registered URIs never carry a fragment.
 */
export function withResponseParams(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.append(key, value);
  }
  const separator = !redirectUri.includes('?') ? '?' : /[?&]$/.test(redirectUri) ? '' : '&';
  return `${redirectUri}${separator}${query.toString()}`;
}

/** What the consent page names as the destination: the host, or the private-use scheme. */
export function redirectHost(redirectUri: string): string {
  try {
    const url = new URL(redirectUri);
    return url.host || url.protocol;
  } catch {
    return redirectUri;
  }
}

/** Whether the redirect URI is `http(s)` on a loopback host: the answer stays on the person's computer. */
export function isLoopbackRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** The host of a metadata-document client's `client_id` URL (shown on the consent page); undefined for a registered client. */
export function metadataDocumentHost(clientId: string): string | undefined {
  if (!/^https?:\/\//i.test(clientId)) return undefined;
  try {
    return new URL(clientId).host;
  } catch {
    return undefined;
  }
}

/**
 * The hosts a client answers to, as people recognise it: the host of a metadata-document
 * client's `client_id` URL, else the hosts of its `http(s)` redirect URIs and the private-use
 * schemes of the others (`vscode:`: the scheme names the application, its "host" does not).
 */
export function clientHosts(clientId: string, redirectUris: readonly string[]): string[] {
  const documentHost = metadataDocumentHost(clientId);
  if (documentHost !== undefined) return [documentHost];
  return [...new Set(redirectUris.map((uri) => (/^https?:/i.test(uri) ? redirectHost(uri) : `${SCHEME_RE.exec(uri)?.[1]?.toLowerCase() ?? uri}:`)))];
}
