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
 * (`fetchClientMetadataDocument`), limited per requesting IP address and per target host with
 * the database counters every instance shares (`RateLimitService`), and shared by concurrent
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
    this.scheduler.every('client-metadata-documents-cleanup', () => this.documents.deleteExpired(), this.logger);
  }

  /**
   * Whether `clientId` names a metadata document (else it is a registered client's id). Any
   * http(s) URL does, whatever the development switch says now: whether it is still acceptable
   * is judged at each use (`resolve`) under the current setting, so a client first used with a
   * loopback document while CLIENT_METADATA_ALLOW_LOOPBACK=true stops working (authorize, token,
   * refresh, revoke) once the switch is off, instead of being found as a stored client.
   */
  isMetadataDocumentClientId(clientId: string): boolean {
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

  private async cachedOrFetched(url: URL, requesterIp: string | null): Promise<ClientMetadata> {
    // A document cached from a loopback host while the development switch was on is not served
    // once it is off: fetched again, the address check refuses it.
    const cached = this.loopbackRefusedNow(url) ? null : await this.documents.findFresh(url.href);
    if (cached) return cached;
    await this.countFetch(url.hostname, requesterIp);
    const fetchedAt = new Date();
    const fetched = await fetchClientMetadataDocument(url, {
      resolve: this.resolver,
      open: this.open,
      allowLoopback: this.config.clientMetadataAllowLoopback,
      timeoutMs: this.timeoutMs,
      maxBytes: this.maxBytes,
    });
    const metadata = validateClientMetadata(fetched.body, url.href, this.config.oauthExtraRedirectSchemes);
    const lifetime = cacheLifetimeSeconds(fetched.headers, fetchedAt.getTime());
    if (lifetime > 0) await this.documents.save(metadata, fetchedAt, new Date(fetchedAt.getTime() + lifetime * 1000));
    else await this.documents.remove(metadata.clientId);
    return metadata;
  }

  private loopbackRefusedNow(url: URL): boolean {
    if (this.config.clientMetadataAllowLoopback) return false;
    const host = url.hostname.toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost')) return true;
    const literal = ipLiteral(host);
    return literal !== undefined && addressProblem(literal, { allowLoopback: false }) !== undefined;
  }

  private async countFetch(host: string, requesterIp: string | null): Promise<void> {
    const rules = [{ key: `cimd-fetch:host:${host.toLowerCase()}`, limit: this.config.clientMetadataFetchesPerHostPerMinute, windowSeconds: 60 }];
    if (requesterIp) {
      const ipKey = createHash('sha256').update(requesterIp).digest('hex').slice(0, 32);
      rules.push({ key: `cimd-fetch:ip:${ipKey}`, limit: this.config.clientMetadataFetchesPerIpPerMinute, windowSeconds: 60 });
    }
    const decision = await this.rateLimits.consume(rules);
    if (!decision.allowed) throw new ClientMetadataRateLimitError(decision.retryAfterSeconds);
  }
}
