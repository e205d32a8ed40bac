import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { Metrics } from '@app/observability';
import { safeFetch, systemResolver, type HostResolver, type RequestOpener } from '@app/outbound';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose';
import * as oidc from 'openid-client';
import { IdentityProviderError } from './identity.errors';
import { discoveryFailure, issuerMismatch } from './idp-failures';
import { IDP_MAX_BYTES, idpFetch, idpWording, lifetimeMs, type IdpFetch } from './idp-fetch';

/** Optional provider: replaces how IdP hosts are resolved and requests opened (tests). */
export const IDP_FETCH_OPTIONS = Symbol('IDP_FETCH_OPTIONS');

export interface IdpFetchOverrides {
  resolve?: HostResolver;
  open?: RequestOpener;
  timeoutMs?: number;
}

/** Where an IdP failure happened, for the failure metric (never the issuer: tenants choose it). */
export type IdpFailureStage = 'sign_in' | 'id_jag';

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

/** An unknown `kid` refetches the key set at most this often per issuer. */
const UNKNOWN_KID_REFETCH_MS = 5_000;
/** The client id openid-client's `discovery()` is given when only the document is wanted. */
const DISCOVERY_ONLY_CLIENT = 'agent-gateway-discovery';

interface Cached<T> {
  value: T;
  until: number;
}

/**
 * An issuer's discovery document and key set, fetched through the SSRF-safe fetcher of
 * `@app/outbound` (https only and public addresses, unless `IDENTITY_PROVIDER_ALLOW_LOOPBACK`),
 * cached in this process for their HTTP lifetime (bounded), and the key set refetched when a
 * token names a `kid` it does not hold (at most every few seconds per issuer). The discovery
 * document is fetched and checked by openid-client's `discovery()` (its issuer must be the one
 * asked for); `fetcherFor` gives openid-client and jose the same fetcher for everything else.
 */
@Injectable()
export class IdpMetadata {
  private readonly logger = new Logger('IdentityProviders');
  private readonly discoveries = new Map<string, Cached<IdpDiscovery>>();
  /** Each fetched key set with its `jose` resolver, made once per fetch (it keeps the imported keys). */
  private readonly keySets = new Map<string, Cached<JSONWebKeySet> & { fetchedAt: number; resolve: JWTVerifyGetKey }>();
  private readonly resolve: HostResolver;

  constructor(
    private readonly config: AppConfig,
    @Optional() @Inject(IDP_FETCH_OPTIONS) private readonly overrides?: IdpFetchOverrides,
    @Optional() private readonly metrics?: Metrics,
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

  /**
   * The issuer's discovery document (`/.well-known/openid-configuration`) as openid-client's
   * `discovery()` fetched and checked it, cached for its HTTP lifetime. Any failure is of kind
   * `unavailable` (an outage at sign-in and ID-JAG trades; saving settings makes it a 400).
   */
  async discovery(issuer: string, options: { fresh?: boolean } = {}): Promise<IdpDiscovery> {
    const cached = this.discoveries.get(issuer);
    if (cached && !options.fresh && cached.until > Date.now()) return cached.value;
    const base = this.checkIssuer(issuer);
    let cacheControl: string | undefined;
    let doc: IdpDiscovery;
    try {
      const found = await oidc.discovery(base, DISCOVERY_ONLY_CLIENT, undefined, oidc.None(), {
        algorithm: 'oidc',
        [oidc.customFetch]: idpFetch('discovery document', this.fetchOptions(5_000), (answer) => {
          cacheControl = headerText(answer.headers['cache-control']);
        }),
        execute: this.insecureAllowed() ? [oidc.allowInsecureRequests] : [],
      });
      doc = found.serverMetadata() as unknown as IdpDiscovery;
    } catch (error) {
      throw discoveryFailure(error, issuer);
    }
    // openid-client compares issuers as URLs and lets Entra's multi-tenant and B2C documents name
    // another issuer; an ID token is checked against the issuer saved, so it must be exactly that.
    if (doc.issuer !== issuer) throw issuerMismatch(doc.issuer, issuer);
    // What sign-in needs from it, over https (plain http only where the issuer itself may use it).
    for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
      if (typeof doc[field] !== 'string') throw new IdentityProviderError('invalid_discovery', `The discovery document has no ${field}`, 'unavailable', 'discovery');
      this.checkEndpoint(doc[field], field);
    }
    this.discoveries.set(issuer, { value: doc, until: Date.now() + lifetimeMs(cacheControl) });
    return doc;
  }

  /**
   * The fetcher openid-client uses for one sign-in with this issuer (its `customFetch`): the
   * SSRF-safe fetcher, with the key set answered from this cache. When the token endpoint's ID
   * token names a `kid` the cached key set lacks, the key set is fetched again first (key
   * rotation; at most every few seconds per issuer), so openid-client's signature check sees it.
   */
  fetcherFor(issuer: string): IdpFetch {
    const post = idpFetch('token endpoint', this.fetchOptions(10_000), async (answer) => {
      if (answer.status !== 200) return;
      await this.refreshForKid(issuer, idTokenKid(answer.body));
    });
    return async (url, init) => {
      const target = new URL(url);
      if (target.protocol !== 'https:' && !this.plainHttpAllowed(target)) {
        throw new IdentityProviderError('invalid_discovery', `The identity provider's endpoint ${target.host} must use https`, 'unavailable', 'token');
      }
      const discovery = await this.discovery(issuer);
      if ((init.method ?? 'GET').toUpperCase() === 'GET' && url === discovery.jwks_uri) return Response.json(await this.keySet(issuer, false));
      return post(url, init);
    };
  }

  /** Whether openid-client may make plain http requests: only under the development switch (loopback hosts). */
  insecureAllowed(): boolean {
    return this.config.identityProviderAllowLoopback;
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

  /**
   * Counts an IdP that failed a sign-in or an ID-JAG trade (`agent_gateway_idp_failures_total`,
   * by what was fetched and where) and logs its issuer at warn: issuers are strings tenants
   * choose, so they are never a metric label.
   */
  reportFailure(error: IdentityProviderError, stage: IdpFailureStage, issuer: string): void {
    const fetching = error.fetching ?? 'discovery';
    this.metrics?.recordIdpFailure(fetching, stage);
    this.logger.warn(`The identity provider ${issuer} failed (${fetching}, ${stage}): ${error.message}`);
  }

  /** Fetches the key set again when it lacks `kid` and was fetched more than a few seconds ago. */
  private async refreshForKid(issuer: string, kid: string | undefined): Promise<void> {
    const entry = this.keySets.get(issuer);
    if (!kid || !entry || entry.value.keys.some((k) => k?.kid === kid)) return;
    if (Date.now() - entry.fetchedAt >= UNKNOWN_KID_REFETCH_MS) await this.keySet(issuer, true);
  }

  private async keySet(issuer: string, fresh: boolean): Promise<JSONWebKeySet> {
    const cached = this.keySets.get(issuer);
    if (cached && !fresh && cached.until > Date.now()) return cached.value;
    const { jwks_uri } = await this.discovery(issuer);
    const { body, headers } = await safeFetch(new URL(jwks_uri), { ...this.fetchOptions(5_000), maxBytes: IDP_MAX_BYTES, wording: idpWording('key set') });
    const set = parseKeySet(body);
    this.keySets.set(issuer, { value: set, until: Date.now() + lifetimeMs(headerText(headers['cache-control'])), fetchedAt: Date.now(), resolve: createLocalJWKSet(set) });
    return set;
  }

  private checkEndpoint(value: string, field: string): void {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new IdentityProviderError('invalid_discovery', `The discovery document's ${field} is not a URL`, 'unavailable', 'discovery');
    }
    if (url.protocol !== 'https:' && !this.plainHttpAllowed(url)) {
      throw new IdentityProviderError('invalid_discovery', `The discovery document's ${field} must use https`, 'unavailable', 'discovery');
    }
  }

  /** Plain http only under `IDENTITY_PROVIDER_ALLOW_LOOPBACK`, and only to a loopback host. */
  private plainHttpAllowed(url: URL): boolean {
    if (url.protocol !== 'http:' || !this.config.identityProviderAllowLoopback) return false;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
  }

  private fetchOptions(defaultTimeoutMs: number) {
    return {
      resolve: this.resolve,
      open: this.overrides?.open,
      allowLoopback: this.config.identityProviderAllowLoopback,
      allowHosts: this.config.outboundAllowHosts,
      timeoutMs: this.overrides?.timeoutMs ?? defaultTimeoutMs,
    };
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The `kid` of the ID token in a token endpoint's answer, when there is one to read. */
function idTokenKid(body: string): string | undefined {
  try {
    const idToken = (JSON.parse(body) as { id_token?: unknown }).id_token;
    const kid = typeof idToken === 'string' ? decodeProtectedHeader(idToken).kid : undefined;
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined; // openid-client refuses the answer with its own reason
  }
}

function parseKeySet(body: string): JSONWebKeySet {
  let value: unknown;
  try {
    value = JSON.parse(body) as unknown;
  } catch {
    value = undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new IdentityProviderError('invalid_jwks', "The identity provider's key set is not a JSON object", 'unavailable', 'jwks');
  }
  if (!Array.isArray((value as JSONWebKeySet).keys)) throw new IdentityProviderError('invalid_jwks', "The identity provider's key set has no keys array", 'unavailable', 'jwks');
  return value as JSONWebKeySet;
}
