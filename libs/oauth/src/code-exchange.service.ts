import { Injectable } from '@nestjs/common';
import type { RequestOrigin } from '@app/audit';
import { CredentialRevoker, hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';
import type { RegisteredClient } from './oauth-clients.service';
import { OAuthError } from './oauth.errors';
import { singleParam, verifyPkce } from './oauth-params';
import { AuthorizationCodesRepository } from './store/authorization-codes.repository';
import { fail, TokenIssuer, TokenResponse } from './token-issuer.service';

/**
 * The authorization_code grant: the code is consumed by a conditional update naming the
 * authenticated client before anything else is checked, so a failed attempt by that client also
 * burns it. A code presented again by its own client is a replay: the grant it produced is
 * revoked with every token issued from it (RFC 6749 §4.1.2, RFC 9700 §4.5). Another client
 * presenting it, used or not, changes nothing: client ids are public, so otherwise anyone holding
 * a leaked code could end the victim's grant.
 */
@Injectable()
export class CodeExchangeService {
  constructor(
    private readonly codes: AuthorizationCodesRepository,
    private readonly issuer: TokenIssuer,
    private readonly revoker: CredentialRevoker,
  ) {}

  async exchange(client: RegisteredClient, body: Record<string, unknown>, origin: RequestOrigin): Promise<TokenResponse> {
    const code = singleParam(body, 'code').value;
    const verifier = singleParam(body, 'code_verifier').value;
    const redirectUri = singleParam(body, 'redirect_uri').value;
    if (!code) throw new OAuthError('invalid_request', 'code is required');
    if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
    this.issuer.checkResource(body);
    if (!isWellFormedToken(code, TOKEN_PREFIXES.authorizationCode)) {
      throw new OAuthError('invalid_grant', 'The authorization code is invalid');
    }

    return this.issuer.inTransaction(async (em) => {
      const row = await this.codes.consume(em, hashToken(code), client.clientId);
      if (!row) {
        const known = await this.codes.find(em, hashToken(code));
        if (known && known.clientId !== client.clientId) return fail('invalid_grant', 'The authorization code was issued to another client');
        if (known?.used) {
          await this.revoker.revokeGrant(em, known.grantId, 'authorization_code_replay', {
            actorType: 'oauth_client',
            actorId: client.clientId,
            origin,
          });
          return fail('invalid_grant', 'The authorization code was already used; every token issued from it has been revoked');
        }
        return fail('invalid_grant', 'The authorization code is invalid');
      }
      if (row.expired) return fail('invalid_grant', 'The authorization code has expired');
      if (row.redirectUriSent ? redirectUri !== row.redirectUri : redirectUri !== undefined && redirectUri !== row.redirectUri) {
        return fail('invalid_grant', 'redirect_uri does not match the one of the authorization request');
      }
      if (!verifyPkce(verifier, row.codeChallenge)) return fail('invalid_grant', 'code_verifier does not match the code_challenge');
      const grant = await this.issuer.liveGrant(em, row.grantId);
      if ('kind' in grant) return grant;
      const response = await this.issuer.issue(em, client, grant, grant.permissions, { parentId: null, issuedBy: 'authorization_code' });
      return { kind: 'issued', response };
    });
  }
}
