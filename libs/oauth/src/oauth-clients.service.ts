import { Injectable } from '@nestjs/common';
import { hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';
import { ClientMetadataDocumentService } from './client-metadata/client-metadata-document.service';
import { ClientMetadataError, ClientMetadataRateLimitError } from './client-metadata/client-metadata.errors';
import type { ClientMetadata } from './client-metadata/document-validation';
import { ClientAuthMethod } from './entities/oauth-client.entity';
import { invalidClient, OAuthError } from './oauth.errors';
import { digestsEqual, parseBasicCredentials, singleParam } from './oauth-params';
import { SUPPORTED_GRANT_TYPES } from './registration-metadata';
import { OAuthClientsRepository, StoredClient } from './store/oauth-clients.repository';

export interface RegisteredClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  grantTypes: string[];
  tokenEndpointAuthMethod: ClientAuthMethod;
  /** The organisation an organisation client belongs to (SPEC §10); null for registered and metadata-document clients. */
  organizationId: string | null;
}

/** How a token or revocation request identified its client (RFC 6749 §2.3). */
export interface PresentedClientCredentials {
  authorizationHeader?: string;
  clientId?: string;
  clientSecret?: string;
}

/**
 * Which client a request names: a registered one or a metadata-document one, and client
 * authentication at the token and revocation endpoints. Registration: `ClientRegistrationService`.
 */
@Injectable()
export class OAuthClientsService {
  constructor(
    private readonly store: OAuthClientsRepository,
    private readonly documents: ClientMetadataDocumentService,
  ) {}

  /**
   * The client named by `clientId`: a registered one, or — when `clientId` is an https URL — the
   * client its metadata document describes (fetched or cached; a `ClientMetadataError` says
   * why it cannot be used). `requesterIp` counts a document fetch against that address's limit.
   */
  async find(clientId: string, requesterIp: string | null = null): Promise<RegisteredClient | null> {
    if (this.documents.isDocumentUrlClientId(clientId)) return this.documentClient(clientId, requesterIp);
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
    await this.store.upsertDocumentClient(metadata.clientId, metadata.clientName, metadata.redirectUris, grantTypes);
    return { clientId: metadata.clientId, clientName: metadata.clientName, redirectUris: metadata.redirectUris, grantTypes, tokenEndpointAuthMethod: 'none', organizationId: null };
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
    if (this.documents.isDocumentUrlClientId(clientId)) {
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
}

function toClient(row: StoredClient): RegisteredClient {
  return {
    clientId: row.clientId,
    clientName: row.clientName,
    redirectUris: row.redirectUris,
    grantTypes: row.grantTypes,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
    organizationId: row.organizationId ?? null,
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
