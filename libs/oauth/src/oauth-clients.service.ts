import { Injectable } from '@nestjs/common';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { generateToken, hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credentials';
import { RateLimitService } from '@app/rate-limit';
import { ClientMetadataDocumentService } from './client-metadata/client-metadata-document.service';
import { ClientMetadataError, ClientMetadataRateLimitError } from './client-metadata/client-metadata.errors';
import type { ClientMetadata } from './client-metadata/document-validation';
import { CLIENT_AUTH_METHODS, ClientAuthMethod } from './entities/oauth-client.entity';
import { invalidClient, OAuthError } from './oauth.errors';
import { digestsEqual, parseBasicCredentials, singleParam } from './oauth-params';
import { redirectUriProblem } from './redirect-uri';
import { OAuthClientsRepository, StoredClient } from './store/oauth-clients.repository';

const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
const MAX_REDIRECT_URIS = 20;
const MAX_CLIENT_NAME = 200;
/** A registration that never completes an authorisation is deleted after this long. */
export const UNUSED_CLIENT_TTL_SECONDS = 24 * 3600;

export interface RegisteredClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  grantTypes: string[];
  tokenEndpointAuthMethod: ClientAuthMethod;
}

/** How a token or revocation request identified its client (RFC 6749 §2.3). */
export interface PresentedClientCredentials {
  authorizationHeader?: string;
  clientId?: string;
  clientSecret?: string;
}

/** Dynamic client registration (RFC 7591) and client authentication at the token endpoint. */
@Injectable()
export class OAuthClientsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: OAuthClientsRepository,
    private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly rateLimits: RateLimitService,
    private readonly documents: ClientMetadataDocumentService,
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
      response_types: ['code'],
      token_endpoint_auth_method: input.tokenEndpointAuthMethod,
    };
  }

  /**
   * The client named by `clientId`: a registered one, or — when `clientId` is an https URL — the
   * client its metadata document describes (fetched or cached; a `ClientMetadataError` says
   * why it cannot be used). `requesterIp` counts a document fetch against that address's limit.
   */
  async find(clientId: string, requesterIp: string | null = null): Promise<RegisteredClient | null> {
    if (this.documents.isMetadataDocumentClientId(clientId)) return this.documentClient(clientId, requesterIp);
    const row = await this.findRow(clientId);
    return row ? toClient(row) : null;
  }

  /**
   * A metadata-document client, kept in `oauth_clients` too (its `client_id` is the URL; public,
   * no secret) so that consent requests, codes and grants reference it like any client. The
   * row follows the document's name and redirect URIs at each resolution.
   */
  private async documentClient(clientId: string, requesterIp: string | null): Promise<RegisteredClient> {
    const metadata: ClientMetadata = await this.documents.resolve(clientId, requesterIp);
    const grantTypes = [...SUPPORTED_GRANT_TYPES];
    await this.dataSource.query(
      `INSERT INTO oauth_clients AS c (client_id, client_name, redirect_uris, grant_types, token_endpoint_auth_method, client_secret_hash, registration_ip)
       VALUES ($1, $2, $3, $4, 'none', NULL, NULL)
       ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name, redirect_uris = excluded.redirect_uris
        WHERE c.client_name IS DISTINCT FROM excluded.client_name OR c.redirect_uris IS DISTINCT FROM excluded.redirect_uris`,
      [metadata.clientId, metadata.clientName, metadata.redirectUris, grantTypes],
    );
    return { clientId: metadata.clientId, clientName: metadata.clientName, redirectUris: metadata.redirectUris, grantTypes, tokenEndpointAuthMethod: 'none' };
  }

  /**
   * Authenticates the client of a token or revocation request: a public client names itself
   * with `client_id`; a confidential one proves its secret with `client_secret_basic` or
   * `client_secret_post` (both accepted for any confidential client). Using two methods at once
   * is refused (RFC 6749 §2.3). `requesterIp` counts a metadata-document fetch against that
   * address's limit, as at authorize.
   */
  async authenticate(presented: PresentedClientCredentials, requesterIp: string | null): Promise<RegisteredClient> {
    let clientId = presented.clientId;
    let secret = presented.clientSecret;
    const usedBasic = presented.authorizationHeader !== undefined && /^Basic\b/i.test(presented.authorizationHeader);
    if (usedBasic) {
      const basic = parseBasicCredentials(presented.authorizationHeader!);
      if (!basic) throw invalidClient('Malformed HTTP Basic client credentials', true);
      if (secret !== undefined) {
        throw new OAuthError('invalid_request', 'Use one client authentication method: HTTP Basic or client_secret in the body, not both');
      }
      if (clientId !== undefined && clientId !== basic.clientId) {
        throw new OAuthError('invalid_request', 'client_id in the body differs from the HTTP Basic client_id');
      }
      clientId = basic.clientId;
      secret = basic.clientSecret;
    }
    if (!clientId) throw invalidClient('Client authentication failed: client_id is missing', usedBasic);
    if (this.documents.isMetadataDocumentClientId(clientId)) {
      if (secret !== undefined) throw invalidClient('Client authentication failed: a metadata-document client is public and has no secret', usedBasic);
      try {
        return await this.documentClient(clientId, requesterIp);
      } catch (error) {
        if (error instanceof ClientMetadataRateLimitError) {
          throw new OAuthError('temporarily_unavailable', error.message, { retryAfterSeconds: error.retryAfterSeconds });
        }
        if (!(error instanceof ClientMetadataError)) throw error;
        throw invalidClient(`Client authentication failed: ${error.message}`, usedBasic);
      }
    }
    const row = await this.findRow(clientId);
    if (!row) throw invalidClient('Client authentication failed: unknown client', usedBasic);
    if (row.tokenEndpointAuthMethod === 'none') {
      if (secret) throw invalidClient('Client authentication failed: this public client has no secret', usedBasic);
      return toClient(row);
    }
    if (!secret) throw invalidClient('Client authentication failed: this client must authenticate with its client_secret', usedBasic);
    const ok = isWellFormedToken(secret, TOKEN_PREFIXES.clientSecret) && digestsEqual(hashToken(secret), row.clientSecretHash ?? '');
    if (!ok) throw invalidClient('Client authentication failed', usedBasic);
    return toClient(row);
  }

  private async findRow(clientId: string): Promise<StoredClient | null> {
    if (clientId.length > 200) return null;
    return this.store.find(clientId);
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

function toClient(row: StoredClient): RegisteredClient {
  return {
    clientId: row.clientId,
    clientName: row.clientName,
    redirectUris: row.redirectUris,
    grantTypes: row.grantTypes,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
  };
}

/** The client credentials a token or revocation request carries (HTTP Basic only when it says Basic). */
export function presentedCredentials(body: Record<string, unknown>, authorizationHeader: string | undefined): PresentedClientCredentials {
  return {
    authorizationHeader: authorizationHeader && /^Basic\b/i.test(authorizationHeader) ? authorizationHeader : undefined,
    clientId: singleParam(body, 'client_id').value,
    clientSecret: singleParam(body, 'client_secret').value,
  };
}

interface ParsedMetadata {
  clientName: string;
  redirectUris: string[];
  grantTypes: string[];
  tokenEndpointAuthMethod: ClientAuthMethod;
}

/** The MCP SDK's RFC 7591 §2 field schemas: the shape of each field this server reads. */
const FIELD = OAuthClientMetadataSchema.shape;

/**
 * RFC 7591 §2 metadata, validated; errors are RFC 7591 §3.2.2 codes. The shape of each field
 * read comes from the SDK's `OAuthClientMetadataSchema`; fields this server does not use are
 * ignored, not checked. Redirect URIs follow this server's own rules (`redirectUriProblem`),
 * which are stricter than a URL's shape and name what is wrong.
 */
function parseMetadata(metadata: unknown, extraSchemes: readonly string[]): ParsedMetadata {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new OAuthError('invalid_client_metadata', 'The registration request must be a JSON object');
  }
  const m = metadata as Record<string, unknown>;

  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of redirect URIs');
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs may be registered`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, extraSchemes);
    if (problem) {
      const shown = typeof uri === 'string' ? uri.slice(0, 200) : JSON.stringify(uri);
      throw new OAuthError('invalid_redirect_uri', `Redirect URI ${shown} ${problem}`);
    }
  }
  const redirectUris = [...new Set(uris as string[])];

  let tokenEndpointAuthMethod: ClientAuthMethod = 'none';
  if (m.token_endpoint_auth_method !== undefined) {
    if (!CLIENT_AUTH_METHODS.includes(m.token_endpoint_auth_method as ClientAuthMethod)) {
      throw new OAuthError(
        'invalid_client_metadata',
        `token_endpoint_auth_method must be one of ${CLIENT_AUTH_METHODS.join(', ')}`,
      );
    }
    tokenEndpointAuthMethod = m.token_endpoint_auth_method as ClientAuthMethod;
  }

  let grantTypes: string[] = [...SUPPORTED_GRANT_TYPES];
  if (m.grant_types !== undefined) {
    if (!FIELD.grant_types.safeParse(m.grant_types).success) {
      throw new OAuthError('invalid_client_metadata', 'grant_types must be an array of strings');
    }
    grantTypes = SUPPORTED_GRANT_TYPES.filter((g) => (m.grant_types as string[]).includes(g));
    if (!grantTypes.includes('authorization_code')) {
      throw new OAuthError('invalid_client_metadata', 'grant_types must include authorization_code (this server supports authorization_code and refresh_token)');
    }
  }

  if (m.response_types !== undefined) {
    if (!Array.isArray(m.response_types) || !m.response_types.includes('code')) {
      throw new OAuthError('invalid_client_metadata', 'response_types must include code');
    }
  }

  let clientName = 'Unnamed application';
  if (m.client_name !== undefined) {
    const name = FIELD.client_name.safeParse(m.client_name);
    if (!name.success || name.data === undefined) throw new OAuthError('invalid_client_metadata', 'client_name must be a string');
    const trimmed = name.data.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
    if (trimmed.length > MAX_CLIENT_NAME) {
      throw new OAuthError('invalid_client_metadata', `client_name must be at most ${MAX_CLIENT_NAME} characters`);
    }
    if (trimmed) clientName = trimmed;
  }

  return { clientName, redirectUris, grantTypes, tokenEndpointAuthMethod };
}
