import type { IncomingHttpHeaders } from 'node:http';
import { safeFetch, type FetchedDocument, type FetcherOptions, type FetchWording } from '@app/outbound';
import { IdentityProviderError } from './identity.errors';

/** What an IdP request fetches: named in refusals, counted by the failure metric. */
export type IdpDocument = 'discovery document' | 'key set' | 'token endpoint';

const FETCHING = { 'discovery document': 'discovery', 'key set': 'jwks', 'token endpoint': 'token' } as const;

/** The most an IdP's document or token answer may weigh. */
export const IDP_MAX_BYTES = 256 * 1024;

/**
 * How the SSRF-safe fetcher's refusals name an IdP request. A failure to reach the IdP (DNS,
 * connection, timeout, an unexpected status such as a 5xx, a document too large) is raised as
 * `identity_provider_unreachable` of kind `unavailable`: at sign-in and at an ID-JAG trade that is
 * an outage (503); saving settings turns it into a 400 naming the IdP (`checkedDiscovery`).
 */
export function idpWording(what: IdpDocument): FetchWording {
  return {
    host: "The identity provider's host",
    document: what === 'token endpoint' ? "The identity provider's token endpoint" : `The identity provider's ${what}`,
    plural: what === 'token endpoint' ? "identity providers' endpoints" : "identity providers' documents",
    userAgent: 'agent-gateway identity-provider-fetcher',
    error: (message) => new IdentityProviderError('identity_provider_unreachable', message, 'unavailable', FETCHING[what]),
  };
}

/** `fetch`'s signature, as openid-client (`customFetch`) and jose call it. */
export type IdpFetch = (url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown }) => Promise<Response>;

/** Headers the fetcher sets itself (`safeFetch` names the host, accepts JSON and says who asks). */
const OWN_HEADERS = new Set(['accept', 'user-agent', 'content-type', 'content-length', 'host']);

/**
 * The SSRF-safe fetcher of `@app/outbound` behind `fetch`'s signature, for openid-client's and
 * jose's `customFetch`: the host resolved once and every address checked, no redirect followed,
 * the body bounded, the whole exchange timed out. A GET (discovery document, key set) must answer
 * 200; a POST (the token endpoint) may answer 400 or 401 with its OAuth error, which openid-client
 * reads. `seen` receives each answer (its `Cache-Control` sets how long it is kept).
 */
export function idpFetch(what: IdpDocument, options: Omit<FetcherOptions, 'wording' | 'maxBytes' | 'form' | 'body' | 'headers' | 'acceptStatuses'>, seen?: (document: FetchedDocument) => void | Promise<void>): IdpFetch {
  return async (url, init) => {
    const headers = Object.fromEntries(Object.entries(init.headers ?? {}).filter(([name]) => !OWN_HEADERS.has(name.toLowerCase())));
    const post = (init.method ?? 'GET').toUpperCase() === 'POST';
    const contentType = Object.entries(init.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? 'application/x-www-form-urlencoded';
    const document = await safeFetch(new URL(url), {
      ...options,
      wording: idpWording(what),
      maxBytes: IDP_MAX_BYTES,
      headers,
      ...(post ? { body: { contentType, data: Buffer.from(String(init.body ?? '')) }, acceptStatuses: [200, 400, 401] } : {}),
    });
    await seen?.(document);
    return new Response(document.body, { status: document.status, headers: responseHeaders(document.headers) });
  };
}

function responseHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}

/** Bounds on how long a document is trusted, whatever its `Cache-Control` says. */
const MIN_CACHE_SECONDS = 60;
const MAX_CACHE_SECONDS = 24 * 60 * 60;
const DEFAULT_CACHE_SECONDS = 60 * 60;

/** How long a fetched document is kept: its `max-age`, bounded; `no-store`/`no-cache` the least. */
export function lifetimeMs(cacheControl: string | undefined): number {
  const match = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '');
  const noStore = /(?:^|,)\s*(no-store|no-cache)/i.test(cacheControl ?? '');
  const seconds = noStore ? MIN_CACHE_SECONDS : match ? Number(match[1]) : DEFAULT_CACHE_SECONDS;
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds)) * 1000;
}
