import { Injectable } from '@nestjs/common';
import { clipText } from '@app/common';
import { BufferedRecords, type RequestOrigin } from '@app/audit';
import { CodeExchangeService } from './code-exchange.service';
import { IdJagExchangeService } from './id-jag-exchange.service';
import { JWT_BEARER_GRANT } from './registration-metadata';
import { OAuthClientsService, presentedCredentials } from './oauth-clients.service';
import { OAuthError } from './oauth.errors';
import { singleParam } from './oauth-params';
import { RefreshRotationService } from './refresh-rotation.service';
import type { TokenResponse } from './token-issuer.service';

export type { TokenResponse } from './token-issuer.service';

/**
 * The token endpoint: checks the request's form, authenticates the client and hands the grant
 * to its handler (authorization_code → `CodeExchangeService`, refresh_token →
 * `RefreshRotationService`, jwt-bearer with an ID-JAG → `IdJagExchangeService`). Single use is enforced there by conditional updates, never
 * read-then-write: exactly one request can consume a code or rotate a refresh token.
 */
@Injectable()
export class OAuthTokensService {
  constructor(
    private readonly clients: OAuthClientsService,
    private readonly codes: CodeExchangeService,
    private readonly refreshes: RefreshRotationService,
    private readonly idJags: IdJagExchangeService,
    private readonly audit: BufferedRecords,
  ) {}

  /** The token request's answer; a refusal is recorded (`token.refused`, the service's chain, batched like every refusal: docs/audit.md). */
  async token(body: Record<string, unknown>, authorizationHeader: string | undefined, origin: RequestOrigin): Promise<TokenResponse> {
    try {
      return await this.answer(body, authorizationHeader, origin);
    } catch (error) {
      if (error instanceof OAuthError) {
        const clientId = singleParam(body, 'client_id').value;
        const grantType = singleParam(body, 'grant_type').value;
        this.audit.add({
          organizationId: null,
          actorType: 'anonymous',
          action: 'token.refused',
          metadata: {
            reason: error.error,
            ...(typeof grantType === 'string' ? { grantType: clipText(grantType, 100) } : {}),
            ...(typeof clientId === 'string' ? { clientId: clipText(clientId, 2048) } : {}),
          },
          origin,
        });
      }
      throw error;
    }
  }

  private async answer(body: Record<string, unknown>, authorizationHeader: string | undefined, origin: RequestOrigin): Promise<TokenResponse> {
    for (const name of ['grant_type', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'assertion', 'scope', 'resource', 'client_id', 'client_secret']) {
      if (singleParam(body, name).duplicate) throw new OAuthError('invalid_request', `${name} was sent more than once`);
    }
    const grantType = singleParam(body, 'grant_type').value;
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token' && grantType !== JWT_BEARER_GRANT) {
      throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported; use authorization_code, refresh_token or ${JWT_BEARER_GRANT}`);
    }
    const presented = presentedCredentials(body, authorizationHeader);
    const client = await this.clients.authenticate(presented, origin.ip ?? null);
    if (grantType === JWT_BEARER_GRANT) this.idJags.checkClient(client, presented.authorizationHeader !== undefined);
    if (!client.grantTypes.includes(grantType)) {
      throw new OAuthError('unauthorized_client', `This client did not register the ${grantType} grant type`);
    }
    if (grantType === JWT_BEARER_GRANT) return this.idJags.exchange(client, body, origin);
    return grantType === 'authorization_code' ? this.codes.exchange(client, body, origin) : this.refreshes.refresh(client, body, origin);
  }
}
