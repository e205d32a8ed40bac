import { Inject, Injectable, Optional } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { safeFetch, systemResolver, type FetchWording, type HostResolver, type RequestOpener } from '@app/outbound';
import { createLocalJWKSet, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose';
import { IdentityProviderError } from './identity.errors';

/** Optional provider: replaces how IdP hosts are resolved and requests opened (tests). */
export const IDP_FETCH_OPTIONS = Symbol('IDP_FETCH_OPTIONS');

export interface IdpFetchOverrides {
  resolve?: HostResolver;
  open?: RequestOpener;
  timeoutMs?: number;
}

/** The fields of an OpenID Provider's discovery document this service reads. */
export interface IdpDiscovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  code_challenge_methods_supported?: string[];
  id_token_signing_alg_values_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  userinfo_endpoint?: string;
  [key: string]: unknown;
}

const MAX_BYTES = 256 * 1024;
/** Bounds on how long a document is trusted, whatever its `Cache-Control` says. */
const MIN_CACHE_SECONDS = 60;
const MAX_CACHE_SECONDS = 24 * 60 * 60;
const DEFAULT_CACHE_SECONDS = 60 * 60;
/** An unknown `kid` refetches the key set at most this often per issuer. */
const UNKNOWN_KID_REFETCH_MS = 5_000;

interface Cached<T> {
  value: T;
  until: number;
}

function wording(what: string): FetchWording {
  return {
    host: "The identity provider's host",
    document: `The identity provider's ${what}`,
    plural: "identity providers' documents",
    userAgent: 'agent-gateway identity-provider-fetcher',
    error: (message) => new IdentityProviderError('identity_provider_unreachable', message),
  };
}

/**
 * An issuer's discovery document and key set, fetched through the SSRF-safe fetcher of
 * `@app/outbound` (https only and public addresses, unless `IDENTITY_PROVIDER_ALLOW_LOOPBACK`),
 * cached in this process for their HTTP lifetime (bounded), and the key set refetched when a
 * token names a `kid` it does not hold (at most every few seconds per issuer).
 */
@Injectable()
export class IdpMetadata {
  private readonly discoveries = new Map<string, Cached<IdpDiscovery>>();
  /** Each fetched key set with its `jose` resolver, made once per fetch (it keeps the imported keys). */
  private readonly keySets = new Map<string, Cached<JSONWebKeySet> & { fetchedAt: number; resolve: JWTVerifyGetKey }>();
  private readonly resolve: HostResolver;

  constructor(
    private readonly config: AppConfig,
    @Optional() @Inject(IDP_FETCH_OPTIONS) private readonly overrides?: IdpFetchOverrides,
  ) {
    this.resolve = overrides?.resolve ?? systemResolver;
  }

  /** The issuer must be an https URL (or http on loopback under the development switch) without query or fragment. */
  checkIssuer(issuer: string): URL {
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw new IdentityProviderError('invalid_issuer', 'issuer must be an absolute URL such as https://idp.example.com');
    }
    if (url.search || url.hash) throw new IdentityProviderError('invalid_issuer', 'issuer must not have a query or a fragment');
    if (url.username || url.password) throw new IdentityProviderError('invalid_issuer', 'issuer must not carry credentials');
    if (url.protocol !== 'https:' && !this.plainHttpAllowed(url)) {
      throw new IdentityProviderError(
        'invalid_issuer',
        this.config.identityProviderAllowLoopback
          ? 'issuer must use https (http only for a loopback host such as 127.0.0.1)'
          : 'issuer must use https (an identity provider on this machine over http, in development, needs the operator setting IDENTITY_PROVIDER_ALLOW_LOOPBACK=true, refused in production)',
      );
    }
    return url;
  }

  /** The issuer's discovery document (`/.well-known/openid-configuration`), checked. */
  async discovery(issuer: string, options: { fresh?: boolean } = {}): Promise<IdpDiscovery> {
    const cached = this.discoveries.get(issuer);
    if (cached && !options.fresh && cached.until > Date.now()) return cached.value;
    const base = this.checkIssuer(issuer);
    const url = new URL(`${base.pathname.replace(/\/$/, '')}/.well-known/openid-configuration`, base);
    const { body, headers } = await this.fetch(url, 'discovery document');
    const doc = parseJson(body, 'discovery document') as IdpDiscovery;
    if (doc.issuer !== issuer) {
      throw new IdentityProviderError('discovery_issuer_mismatch', `The discovery document names the issuer ${JSON.stringify(String(doc.issuer)).slice(0, 200)}, not ${issuer}`);
    }
    for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
      if (typeof doc[field] !== 'string') throw new IdentityProviderError('invalid_discovery', `The discovery document has no ${field}`);
      this.checkEndpoint(doc[field], field);
    }
    this.discoveries.set(issuer, { value: doc, until: Date.now() + lifetimeMs(headers['cache-control']) });
    return doc;
  }

  /** The issuer's key set as a `jose` key resolver: an unknown `kid` refetches it once. */
  async keys(issuer: string): Promise<JWTVerifyGetKey> {
    await this.keySet(issuer, false);
    return async (header, token) => {
      const entry = this.keySets.get(issuer)!;
      try {
        return await entry.resolve(header, token);
      } catch (error) {
        if (Date.now() - entry.fetchedAt < UNKNOWN_KID_REFETCH_MS) throw error;
        await this.keySet(issuer, true);
        return this.keySets.get(issuer)!.resolve(header, token);
      }
    };
  }

  /**
   * The key set's keys a signature could be checked with (RSA, EC or OKP public keys for
   * signatures; no symmetric, encryption-only or `alg: none` keys). `fresh` refetches it.
   */
  async signingKeys(issuer: string, options: { fresh?: boolean } = {}): Promise<JWK[]> {
    const set = await this.keySet(issuer, options.fresh ?? false);
    return set.keys.filter(
      (k) =>
        !!k &&
        typeof k === 'object' &&
        ['RSA', 'EC', 'OKP'].includes(String(k.kty)) &&
        (k.use === undefined || k.use === 'sig') &&
        (!Array.isArray(k.key_ops) || k.key_ops.includes('verify')) &&
        (k.alg === undefined || (typeof k.alg === 'string' && k.alg !== 'none' && !/^HS/i.test(k.alg))),
    );
  }

  private async keySet(issuer: string, fresh: boolean): Promise<JSONWebKeySet> {
    const cached = this.keySets.get(issuer);
    if (cached && !fresh && cached.until > Date.now()) return cached.value;
    const { jwks_uri } = await this.discovery(issuer);
    const { body, headers } = await this.fetch(new URL(jwks_uri), 'key set');
    const set = parseJson(body, 'key set') as unknown as JSONWebKeySet;
    if (!Array.isArray(set?.keys)) throw new IdentityProviderError('invalid_jwks', "The identity provider's key set has no keys array");
    this.keySets.set(issuer, { value: set, until: Date.now() + lifetimeMs(headers['cache-control']), fetchedAt: Date.now(), resolve: createLocalJWKSet(set) });
    return set;
  }

  private checkEndpoint(value: string, field: string): void {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new IdentityProviderError('invalid_discovery', `The discovery document's ${field} is not a URL`);
    }
    if (url.protocol !== 'https:' && !this.plainHttpAllowed(url)) {
      throw new IdentityProviderError('invalid_discovery', `The discovery document's ${field} must use https`);
    }
  }

  /** Plain http only under `IDENTITY_PROVIDER_ALLOW_LOOPBACK`, and only to a loopback host. */
  private plainHttpAllowed(url: URL): boolean {
    if (url.protocol !== 'http:' || !this.config.identityProviderAllowLoopback) return false;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
  }

  private fetch(url: URL, what: string) {
    return safeFetch(url, {
      resolve: this.resolve,
      open: this.overrides?.open,
      allowLoopback: this.config.identityProviderAllowLoopback,
      allowHosts: this.config.outboundAllowHosts,
      timeoutMs: this.overrides?.timeoutMs ?? 5_000,
      maxBytes: MAX_BYTES,
      wording: wording(what),
    });
  }
}

function parseJson(body: string, what: string): Record<string, unknown> {
  try {
    const value = JSON.parse(body) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new IdentityProviderError(what === 'key set' ? 'invalid_jwks' : 'invalid_discovery', `The identity provider's ${what} is not a JSON object`);
}

function lifetimeMs(cacheControl: string | undefined): number {
  const match = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '');
  const noStore = /(?:^|,)\s*(no-store|no-cache)/i.test(cacheControl ?? '');
  const seconds = noStore ? MIN_CACHE_SECONDS : match ? Number(match[1]) : DEFAULT_CACHE_SECONDS;
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds)) * 1000;
}
