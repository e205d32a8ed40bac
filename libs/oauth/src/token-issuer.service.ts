import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  AgentPermission,
  AgentTokensRepository,
  generateToken,
  hashToken,
  OAuthGrant,
  OAuthGrantsRepository,
  RefreshTokenOrigin,
  RefreshTokensRepository,
  TOKEN_PREFIXES,
} from '@app/credentials';
import { ProjectDirectory } from '@app/tenancy';
import type { RegisteredClient } from './oauth-clients.service';
import { OAuthError } from './oauth.errors';
import { scopeString } from './oauth-params';

/** RFC 6749 §5.1 successful token response. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/** A refusal decided inside a transaction; thrown once the transaction has committed what it must keep. */
export type Failure = { kind: 'error'; error: OAuthError };
export type Issued = { kind: 'issued'; response: TokenResponse };

export function fail(error: 'invalid_grant' | 'invalid_scope', description: string): Failure {
  return { kind: 'error', error: new OAuthError(error, description) };
}

/** The grant's live state and the issue of an access token (and a refresh token) from it. */
@Injectable()
export class TokenIssuer {
  constructor(
    private readonly config: AppConfig,
    private readonly grants: OAuthGrantsRepository,
    private readonly agentTokens: AgentTokensRepository,
    private readonly refreshTokens: RefreshTokensRepository,
    private readonly projects: ProjectDirectory,
  ) {}

  /**
   * The grant behind a code or refresh token, if it still stands: not revoked, its project not
   * deleted, and its person still a member of the project's organisation. The grant row stays
   * locked until the transaction ends (see `OAuthGrantsRepository.findForUpdate`).
   */
  async liveGrant(em: EntityManager, grantId: string): Promise<OAuthGrant | Failure> {
    const grant = await this.grants.findForUpdate(em, grantId);
    if (!grant || grant.revokedAt) return fail('invalid_grant', 'The grant has been revoked');
    if (!(await this.projects.isReachableBy(grant.userId, grant.organizationId, grant.projectId, em))) {
      return fail('invalid_grant', 'The person who approved this grant can no longer reach its project');
    }
    return grant;
  }

  async issue(
    em: EntityManager,
    client: RegisteredClient,
    grant: OAuthGrant,
    permissions: AgentPermission[],
    refresh: { parentId: string | null; issuedBy: RefreshTokenOrigin },
  ): Promise<TokenResponse> {
    const accessToken = generateToken(TOKEN_PREFIXES.agentAccess);
    await this.agentTokens.insert(em, {
      tokenHash: hashToken(accessToken),
      source: 'oauth',
      organizationId: grant.organizationId,
      projectId: grant.projectId,
      permissions,
      grantId: grant.id,
      clientId: client.clientId,
      userId: grant.userId,
      ttlSeconds: this.config.accessTokenTtlSeconds,
    });
    let refreshToken: string | undefined;
    if (client.grantTypes.includes('refresh_token')) {
      refreshToken = generateToken(TOKEN_PREFIXES.refresh);
      await this.refreshTokens.insert(em, {
        tokenHash: hashToken(refreshToken),
        grantId: grant.id,
        parentId: refresh.parentId,
        issuedBy: refresh.issuedBy,
        ttlSeconds: this.config.refreshTokenTtlSeconds,
      });
    }
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.config.accessTokenTtlSeconds,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: scopeString(permissions),
    };
  }
}
