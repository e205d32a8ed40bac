import { OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import type { IncomingHttpHeaders } from 'node:http';
import { hasUnsafeDisplayCharacters } from '@app/common';
import { redirectUriProblem } from '../redirect-uri';
import { ClientMetadataError } from './client-metadata.errors';

const MAX_REDIRECT_URIS = 20;
const MAX_CLIENT_NAME = 200;
/** How long a document is kept at least and at most, whatever its cache headers say. */
export const MIN_CACHE_SECONDS = 5 * 60;
export const MAX_CACHE_SECONDS = 24 * 3600;

/** What the authorisation server uses of a validated document. */
export interface ClientMetadata {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  /** Always `none`: a metadata-document client is public and proves itself with PKCE. */
  tokenEndpointAuthMethod: 'none';
}

/** The MCP SDK's RFC 7591 §2 field schemas: the shape of each field read here. */
const FIELD = OAuthClientMetadataSchema.shape;

/**
 * Validates a fetched document: a JSON object whose `client_id` is exactly the URL it was
 * fetched from, with a `client_name` (no control or bidirectional formatting characters:
 * `hasUnsafeDisplayCharacters`) and `redirect_uris` that this server's redirect rules
 * accept; a public client only (no `client_secret`, no `client_secret_expires_at`,
 * `token_endpoint_auth_method` absent or `none`). Other RFC 7591 fields are not used.
 */
export function validateClientMetadata(body: string, url: string, extraRedirectSchemes?: readonly string[]): ClientMetadata {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw invalid('is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('must be a JSON object');
  const doc = value as Record<string, unknown>;
  if (typeof doc.client_id !== 'string') throw invalid('has no client_id');
  if (doc.client_id !== url) throw invalid('has a client_id that differs from the URL it was fetched from');
  if ('client_secret' in doc || 'client_secret_expires_at' in doc) {
    throw invalid('must not carry a client_secret (a metadata-document client is public and uses PKCE)');
  }
  if (doc.token_endpoint_auth_method !== undefined) {
    if (!FIELD.token_endpoint_auth_method.safeParse(doc.token_endpoint_auth_method).success || doc.token_endpoint_auth_method !== 'none') {
      throw invalid('must have token_endpoint_auth_method "none" (or none at all): shared-secret methods are not possible for a public document');
    }
  }

  const name = FIELD.client_name.safeParse(doc.client_name);
  if (!name.success || typeof name.data !== 'string') throw invalid('must have a client_name string');
  // Shown on the consent page, the Connected clients page and in the audit log: refused, never echoed.
  if (hasUnsafeDisplayCharacters(name.data)) throw invalid('must have a client_name without control characters or bidirectional formatting characters');
  const clientName = name.data.trim();
  if (!clientName) throw invalid('must have a non-empty client_name');
  if (clientName.length > MAX_CLIENT_NAME) throw invalid(`must have a client_name of at most ${MAX_CLIENT_NAME} characters`);

  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) throw invalid('must list at least one redirect URI in redirect_uris');
  if (uris.length > MAX_REDIRECT_URIS) throw invalid(`must list at most ${MAX_REDIRECT_URIS} redirect URIs`);
  uris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri, extraRedirectSchemes);
    if (problem) throw invalid(`has an unacceptable redirect_uris[${i}]: it ${problem}`);
  });
  if (!FIELD.redirect_uris.safeParse(uris).success) throw invalid('must list redirect_uris as URLs');

  if (doc.grant_types !== undefined) {
    const grants = FIELD.grant_types.safeParse(doc.grant_types);
    if (!grants.success || !grants.data?.includes('authorization_code')) {
      throw invalid('must allow the authorization_code grant when it lists grant_types');
    }
  }
  if (doc.response_types !== undefined) {
    const types = FIELD.response_types.safeParse(doc.response_types);
    if (!types.success || !types.data?.includes('code')) throw invalid('must allow the code response type when it lists response_types');
  }
  return { clientId: url, clientName, redirectUris: uris as string[], tokenEndpointAuthMethod: 'none' };
}

function invalid(what: string): ClientMetadataError {
  return new ClientMetadataError(`The client metadata document ${what}`);
}

/**
 * How long a fetched document may be reused, from its HTTP cache headers: `no-store` or
 * `no-cache` → not at all (0); else `max-age` (`s-maxage` first: this is a shared cache), else
 * `Expires` against `Date`; the result is clamped to 5 minutes … 24 hours (also when there are
 * no cache headers at all: 5 minutes).
 */
export function cacheLifetimeSeconds(headers: IncomingHttpHeaders, now = Date.now()): number {
  const cacheControl = String(headers['cache-control'] ?? '').toLowerCase();
  const directives = new Map<string, string | undefined>();
  for (const part of cacheControl.split(',')) {
    const [key, raw] = part.split('=', 2).map((s) => s.trim());
    if (key) directives.set(key, raw?.replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  let seconds: number | undefined;
  for (const key of ['s-maxage', 'max-age']) {
    const raw = directives.get(key);
    if (raw !== undefined && /^\d+$/.test(raw)) {
      seconds = Number(raw);
      break;
    }
  }
  if (seconds === undefined && typeof headers.expires === 'string') {
    const expires = Date.parse(headers.expires);
    const date = typeof headers.date === 'string' ? Date.parse(headers.date) : NaN;
    if (Number.isFinite(expires)) seconds = Math.floor((expires - (Number.isFinite(date) ? date : now)) / 1000);
    else seconds = 0; // an invalid Expires means "already expired" (RFC 9111 §5.3): the minimum
  }
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds ?? MIN_CACHE_SECONDS));
}
