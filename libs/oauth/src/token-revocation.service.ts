import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RequestOrigin } from '@app/audit';
import { CredentialRevoker, hashToken, isWellFormedToken, RefreshTokensRepository, TOKEN_PREFIXES } from '@app/credentials';
import { OAuthClientsService, presentedCredentials } from './oauth-clients.service';
import { OAuthError } from './oauth.errors';
import { singleParam } from './oauth-params';

/**
 * RFC 7009: a refresh token revokes its grant (and every access token of it); an access token
 * revokes itself. Unknown tokens, and tokens of another client, change nothing and still
 * answer 200, so the endpoint reveals nothing.
 */
@Injectable()
export class TokenRevocationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clients: OAuthClientsService,
    private readonly refreshTokens: RefreshTokensRepository,
    private readonly revoker: CredentialRevoker,
  ) {}

  async revoke(body: Record<string, unknown>, authorizationHeader: string | undefined, origin: RequestOrigin): Promise<void> {
    for (const name of ['token', 'token_type_hint', 'client_id', 'client_secret']) {
      if (singleParam(body, name).duplicate) throw new OAuthError('invalid_request', `${name} was sent more than once`);
    }
    const token = singleParam(body, 'token').value;
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    const credentials = presentedCredentials(body, authorizationHeader);
    const identified = credentials.authorizationHeader !== undefined || credentials.clientId !== undefined;
    const client = identified ? await this.clients.authenticate(credentials) : null;

    if (isWellFormedToken(token, TOKEN_PREFIXES.refresh)) {
      await this.dataSource.transaction(async (em) => {
        const row = await this.refreshTokens.findByHash(em, hashToken(token));
        if (!row || (client && row.clientId !== client.clientId)) return;
        await this.revoker.revokeGrant(em, row.grantId, {
          actorType: 'oauth_client',
          actorId: row.clientId,
          reason: 'revoked_by_client',
          origin,
        });
      });
      return;
    }
    if (isWellFormedToken(token, TOKEN_PREFIXES.agentAccess)) {
      await this.revoker.revokeOAuthAccessToken(hashToken(token), client?.clientId ?? null);
    }
  }
}
