import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '@app/config';
import { CleanupScheduler } from '@app/database';
import { RateLimitService } from '@app/rate-limit';
import { matchRedirectUri } from '../redirect-uri';
import { ClientMetadataDocumentRepository } from './client-metadata-document.repository';
import { ClientMetadataError, ClientMetadataRateLimitError } from './client-metadata.errors';
import { addressProblem, ipLiteral } from './address-policy';
import { isClientIdUrl, parseClientIdUrl } from './client-id-url';
import { fetchClientMetadataDocument, HostResolver, RequestOpener, systemResolver } from './document-fetcher';
import { cacheLifetimeSeconds, ClientMetadata, validateClientMetadata } from './document-validation';

/** Largest document accepted. */
export const CLIENT_METADATA_MAX_BYTES = 5 * 1024;
/** For the whole fetch: resolution, connection, headers and body. */
export const CLIENT_METADATA_TIMEOUT_MS = 3000;

/**
 * How long past its cache lifetime a document that was valid is kept: served when a fetch may not
 * be made now (the requester's or the host's budget is spent), and counted as a known document.
 */
export const CLIENT_METADATA_STALE_SECONDS = 24 * 60 * 60;

/** Optional provider: replaces how hosts are resolved and requests opened (tests inject a resolver). */
export const CLIENT_METADATA_FETCH_OPTIONS = Symbol('CLIENT_METADATA_FETCH_OPTIONS');

export interface ClientMetadataFetchOverrides {
  resolve?: HostResolver;
  open?: RequestOpener;
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25):
 * a `client_id` that is an https URL names a JSON document describing the client, fetched
 * instead of a registration.
 *
 * `resolve` answers the validated metadata of such a `client_id`: from the shared cache
 * (`client_metadata_documents`) while it is fresh, else by fetching it — SSRF-safe
 * (`fetchClientMetadataDocument`), budgeted per requesting IP address first, then per target
 * host with successes and failures apart (`cachedOrFetched`), in the database counters every
 * instance shares (`RateLimitService`), and shared by concurrent
 * callers in this process (one fetch per URL at a time). A document is cached per its HTTP cache
 * headers (5 minutes … 24 hours); a failure is never cached, so the next request tries again.
 */
@Injectable()
export class ClientMetadataDocumentService implements OnModuleInit {
  private readonly logger = new Logger('ClientMetadata');
  private readonly inFlight = new Map<string, Promise<ClientMetadata>>();
  private readonly resolver: HostResolver;
  private readonly open: RequestOpener | undefined;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(
    private readonly documents: ClientMetadataDocumentRepository,
    private readonly rateLimits: RateLimitService,
    private readonly config: AppConfig,
    private readonly scheduler: CleanupScheduler,
    @Optional() @Inject(CLIENT_METADATA_FETCH_OPTIONS) overrides?: ClientMetadataFetchOverrides,
  ) {
    if (config.clientMetadataAllowLoopback && config.nodeEnv === 'production') {
      throw new Error('CLIENT_METADATA_ALLOW_LOOPBACK=true is not allowed when NODE_ENV=production');
    }
    this.resolver = overrides?.resolve ?? systemResolver;
    this.open = overrides?.open;
    this.timeoutMs = overrides?.timeoutMs ?? CLIENT_METADATA_TIMEOUT_MS;
    this.maxBytes = overrides?.maxBytes ?? CLIENT_METADATA_MAX_BYTES;
  }

  onModuleInit(): void {
    this.scheduler.every('client-metadata-documents-cleanup', () => this.documents.deleteExpired(CLIENT_METADATA_STALE_SECONDS), this.logger);
  }

  /** Whether `clientId` names a metadata document acceptable now (else it is a registered client's id, or refused). */
  isMetadataDocumentClientId(clientId: string): boolean {
    return isClientIdUrl(clientId, this.config.clientMetadataAllowLoopback);
  }

  /**
   * Whether `clientId` is written as a metadata-document URL at all (`http` or `https`), whatever
   * the development switch says now. Such a client is always resolved as a document client and
   * judged under the current setting at each use (`resolve`), so a client first used with a
   * loopback document while CLIENT_METADATA_ALLOW_LOOPBACK=true stops working (authorize, token,
   * refresh, revoke) once the switch is off, instead of being found as a stored client.
   */
  isDocumentUrlClientId(clientId: string): boolean {
    return isClientIdUrl(clientId, true);
  }

  /**
   * The validated metadata of the client whose `client_id` is the URL `clientId`. Throws a
   * `ClientMetadataError` naming what is wrong (URL, address, fetch or document), or a
   * `ClientMetadataRateLimitError` (429 with `Retry-After`). `requesterIp` counts the fetch
   * against the requesting address's limit (cache hits count nothing).
   */
  async resolve(clientId: string, requesterIp: string | null): Promise<ClientMetadata> {
    const url = parseClientIdUrl(clientId, this.config.clientMetadataAllowLoopback);
    const key = url.href;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.cachedOrFetched(url, requesterIp).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /**
   * Resolves the client and checks the request's redirect URI against its document: exact
   * match, or a loopback URI differing only in its port (RFC 8252 §7.3), as for registered
   * clients.
   */
  async resolveWithRedirect(clientId: string, redirectUri: string, requesterIp: string | null): Promise<ClientMetadata> {
    const client = await this.resolve(clientId, requesterIp);
    if (!matchRedirectUri(client.redirectUris, redirectUri)) {
      throw new ClientMetadataError('The redirect_uri is not one of the redirect_uris in the client metadata document');
    }
    return client;
  }

  /**
   * The fresh cached document, else a fetch within three budgets, in this order:
   *
   * 1. the requester's (`cimd-fetch:ip:…`, counted on every attempt): what one address can make
   *    the service fetch, spent before anything else;
   * 2. the host's successes (`cimd-fetch:host:…`, counted after a valid document was fetched);
   * 3. the host's failures (`cimd-fetch:host-fail:…`, counted after a fetch failed: an HTTP error,
   *    an invalid document, a timeout), which only a URL that never served a valid document must
   *    stay within. Made-up paths on a client's host therefore spend the failure budget only, and
   *    cannot lock out the host's real document for anyone else.
   *
   * When a budget is spent, a document that was valid (cached, even up to
   * `CLIENT_METADATA_STALE_SECONDS` past its lifetime) is served instead of a 429.
   */
  private async cachedOrFetched(url: URL, requesterIp: string | null): Promise<ClientMetadata> {
    // A document cached from a loopback host while the development switch was on is not served
    // once it is off: fetched again, the address check refuses it.
    const known = this.loopbackRefusedNow(url) ? null : await this.documents.findUsable(url.href, CLIENT_METADATA_STALE_SECONDS);
    if (known?.fresh) return known.metadata;
    const host = url.hostname.toLowerCase();
    const refusal = await this.fetchBudgetRefusal(host, requesterIp, known !== null);
    if (refusal !== undefined) {
      if (known) return known.metadata;
      throw new ClientMetadataRateLimitError(refusal);
    }
    let metadata: ClientMetadata;
    let lifetime: number;
    const fetchedAt = new Date();
    try {
      const fetched = await fetchClientMetadataDocument(url, {
        resolve: this.resolver,
        open: this.open,
        allowLoopback: this.config.clientMetadataAllowLoopback,
        timeoutMs: this.timeoutMs,
        maxBytes: this.maxBytes,
      });
      metadata = validateClientMetadata(fetched.body, url.href, this.config.oauthExtraRedirectSchemes);
      lifetime = cacheLifetimeSeconds(fetched.headers, fetchedAt.getTime());
    } catch (error) {
      if (error instanceof ClientMetadataError) await this.rateLimits.consume([this.hostRule('host-fail', host)]);
      throw error;
    }
    await this.rateLimits.consume([this.hostRule('host', host)]);
    if (lifetime > 0) await this.documents.save(metadata, fetchedAt, new Date(fetchedAt.getTime() + lifetime * 1000));
    else await this.documents.remove(metadata.clientId);
    return metadata;
  }

  /** Seconds to wait when a fetch may not be made now (see `cachedOrFetched`), else undefined. */
  private async fetchBudgetRefusal(host: string, requesterIp: string | null, knownDocument: boolean): Promise<number | undefined> {
    if (requesterIp) {
      const ipKey = createHash('sha256').update(requesterIp).digest('hex').slice(0, 32);
      const own = await this.rateLimits.consume([{ key: `cimd-fetch:ip:${ipKey}`, limit: this.config.clientMetadataFetchesPerIpPerMinute, windowSeconds: 60 }]);
      if (!own.allowed) return own.retryAfterSeconds;
    }
    const hostRules = knownDocument ? [this.hostRule('host', host)] : [this.hostRule('host', host), this.hostRule('host-fail', host)];
    const hostDecision = await this.rateLimits.check(hostRules);
    return hostDecision.allowed ? undefined : hostDecision.retryAfterSeconds;
  }

  private hostRule(kind: 'host' | 'host-fail', host: string) {
    return { key: `cimd-fetch:${kind}:${host}`, limit: this.config.clientMetadataFetchesPerHostPerMinute, windowSeconds: 60 };
  }

  private loopbackRefusedNow(url: URL): boolean {
    if (this.config.clientMetadataAllowLoopback) return false;
    const host = url.hostname.toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost')) return true;
    const literal = ipLiteral(host);
    return literal !== undefined && addressProblem(literal, { allowLoopback: false }) !== undefined;
  }
}
