import { Injectable } from '@nestjs/common';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService, RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { generateToken, hashToken, TOKEN_PREFIXES } from '@app/credential-store';
import { RateLimitService } from '@app/rate-limit';
import { OAuthError } from './oauth.errors';
import { JWT_BEARER_GRANT, parseMetadata } from './registration-metadata';
import { OAuthClientsRepository } from './store/oauth-clients.repository';

/** A registration that never completes an authorisation is deleted after this long. */
export const UNUSED_CLIENT_TTL_SECONDS = 24 * 3600;

/** Dynamic client registration (RFC 7591): metadata checked, the per-address limit, the row and its audit event. */
@Injectable()
export class ClientRegistrationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: OAuthClientsRepository,
    private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly rateLimits: RateLimitService,
  ) {}

  /**
   * Registers a client from its metadata. Unknown fields are ignored; redirect URIs follow
   * `redirectUriProblem`; `none` (public client) unless a secret-based method is asked for, in
   * which case a `dgs_` secret is returned once.
   */
  async register(metadata: unknown, origin: RequestOrigin): Promise<OAuthClientInformationFull> {
    const input = parseMetadata(metadata, this.config.oauthExtraRedirectSchemes);
    await this.enforceRateLimit(origin.ip ?? null);
    const clientId = randomUUID();
    const secret = input.tokenEndpointAuthMethod === 'none' ? undefined : generateToken(TOKEN_PREFIXES.clientSecret);
    const createdAt = await this.dataSource.transaction(async (em) => {
      const created = await this.store.insert(em, {
        clientId,
        clientName: input.clientName,
        redirectUris: input.redirectUris,
        grantTypes: input.grantTypes,
        tokenEndpointAuthMethod: input.tokenEndpointAuthMethod,
        clientSecretHash: secret ? hashToken(secret) : null,
        registrationIp: origin.ip ?? null,
      });
      await this.audit.record(em, {
        organizationId: null,
        actorType: 'anonymous',
        action: 'oauth_client.registered',
        targetType: 'oauth_client',
        targetId: clientId,
        metadata: {
          clientName: input.clientName,
          redirectUris: input.redirectUris,
          tokenEndpointAuthMethod: input.tokenEndpointAuthMethod,
        },
        origin,
      });
      return created;
    });
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(new Date(createdAt).getTime() / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      client_name: input.clientName,
      redirect_uris: input.redirectUris,
      grant_types: input.grantTypes,
      response_types: input.grantTypes.includes('authorization_code') ? ['code'] : [],
      token_endpoint_auth_method: input.tokenEndpointAuthMethod,
    };
  }

  /**
   * A confidential client an organisation's admin makes for an AI client that trades ID-JAGs:
   * the jwt-bearer grant alone, no redirect URI, `client_secret_basic` (`_post` accepted too),
   * the `dgs_` secret answered once. It belongs to the organisation (SPEC §10: it survives its
   * creator, and only that organisation's settings may name it). Audited in the organisation as
   * `oauth_client.registered`.
   */
  async createConfidential(organizationId: string, clientName: string, actor: AuditActor) {
    const clientId = randomUUID();
    const secret = generateToken(TOKEN_PREFIXES.clientSecret);
    const grantTypes = [JWT_BEARER_GRANT];
    const createdAt = await this.dataSource.transaction(async (em) => {
      const created = await this.store.insert(em, {
        clientId,
        clientName,
        redirectUris: [],
        grantTypes,
        tokenEndpointAuthMethod: 'client_secret_basic',
        clientSecretHash: hashToken(secret),
        registrationIp: actor.origin?.ip ?? null,
        organizationId,
        createdBy: actor.actorType === 'user' ? actor.actorId : null,
      });
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'oauth_client.registered',
        targetType: 'oauth_client',
        targetId: clientId,
        metadata: { clientName, redirectUris: [], tokenEndpointAuthMethod: 'client_secret_basic', grantTypes, createdByAdmin: true },
      });
      return created;
    });
    return { clientId, clientSecret: secret, clientName, grantTypes, tokenEndpointAuthMethod: 'client_secret_basic' as const, createdAt: new Date(createdAt) };
  }

  /**
   * Per-IP limit on registrations, on the shared database counters (`RateLimitService`), so
   * every instance shares it. The registration is counted before it is written: parallel
   * registrations cannot slip past the limit together.
   */
  private async enforceRateLimit(ip: string | null): Promise<void> {
    if (!ip) return;
    const decision = await this.rateLimits.consume([
      { key: `oauth-register:ip:${ip}`, limit: this.config.registrationRateLimitPerMinute, windowSeconds: 60 },
    ]);
    if (!decision.allowed) {
      const retryAfter = decision.retryAfterSeconds;
      throw new OAuthError(
        'temporarily_unavailable',
        `Too many client registrations from this address; retry in ${retryAfter} s`,
        { retryAfterSeconds: retryAfter },
      );
    }
  }
}
