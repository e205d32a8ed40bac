import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RequestOrigin } from '@app/audit';
import { OAuthAccessTokenStore, CredentialRevoker, RefreshTokenStore, hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';
import { OAuthClientsService, presentedCredentials, RegisteredClient } from './oauth-clients.service';
import { OAuthError } from './oauth.errors';
import { singleParam } from './oauth-params';
import { OAuthClientsRepository } from './store/oauth-clients.repository';

/**
 * RFC 7009: a refresh token revokes its grant (and every access token of it); an access token
 * revokes itself. The client must authenticate (§2.1): a request naming a client is
 * authenticated as at the token endpoint (a confidential client's missing or wrong secret → 401
 * `invalid_client`); a request naming none may end only a public client's token, whose token
 * is the only credential it has. Unknown tokens, tokens of another client and a confidential
 * client's tokens presented without its secret change nothing and still answer 200, so the
 * endpoint reveals nothing. `revoke` answers whether the token was one the caller may revoke
 * (what the endpoint's failure limit counts as a success, `TokenRateLimit`).
 */
@Injectable()
export class TokenRevocationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clients: OAuthClientsService,
    private readonly clientStore: OAuthClientsRepository,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly agentTokens: OAuthAccessTokenStore,
    private readonly revoker: CredentialRevoker,
  ) {}

  async revoke(body: Record<string, unknown>, authorizationHeader: string | undefined, origin: RequestOrigin): Promise<boolean> {
    for (const name of ['token', 'token_type_hint', 'client_id', 'client_secret']) {
      if (singleParam(body, name).duplicate) throw new OAuthError('invalid_request', `${name} was sent more than once`);
    }
    const token = singleParam(body, 'token').value;
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    const credentials = presentedCredentials(body, authorizationHeader);
    const identified = credentials.authorizationHeader !== undefined || credentials.clientId !== undefined;
    const client = identified ? await this.clients.authenticate(credentials, origin.ip ?? null) : null;

    if (isWellFormedToken(token, TOKEN_PREFIXES.refresh)) {
      const row = await this.refreshTokens.findByHash(this.dataSource.manager, hashToken(token));
      if (!row || !(await this.mayRevoke(client, row.clientId))) return false;
      await this.dataSource.transaction((em) =>
        this.revoker.revokeGrant(em, row.grantId, 'revoked_by_client', { actorType: 'oauth_client', actorId: row.clientId, origin }),
      );
      return true;
    }
    if (isWellFormedToken(token, TOKEN_PREFIXES.agentAccess)) {
      const tokenClientId = await this.agentTokens.oauthClientOf(hashToken(token));
      if (!tokenClientId || !(await this.mayRevoke(client, tokenClientId))) return false;
      await this.revoker.revokeOAuthAccessToken(hashToken(token), tokenClientId);
      return true;
    }
    return false;
  }

  /** The authenticated client owns the token; or none authenticated and the token's client is public. */
  private async mayRevoke(authenticated: RegisteredClient | null, tokenClientId: string): Promise<boolean> {
    if (authenticated) return authenticated.clientId === tokenClientId;
    const owner = await this.clientStore.find(tokenClientId);
    return owner?.tokenEndpointAuthMethod === 'none';
  }
}
