import { Injectable } from '@nestjs/common';
import { AuditService } from '@app/audit';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import { AgentPermission } from '@app/capabilities';
import { OAuthAccessTokenStore, OAuthGrant, OAuthGrantStore, RefreshTokenOrigin, RefreshTokenStore, generateToken, hashToken, TOKEN_PREFIXES } from '@app/credential-store';
import { ProjectDirectory } from '@app/tenancy';
import { admitsClient } from './client-policy/client-policy';
import { ClientPolicyRepository } from './client-policy/client-policy.repository';
import type { RegisteredClient } from './oauth-clients.service';
import { OAuthError } from './oauth.errors';
import { isOwnResource, scopeString, singleParam } from './oauth-params';

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

/**
 * What the token endpoint's grants share: the `resource` check, the transaction a grant's
 * exchange runs in, the grant's live state and the issue of an access token (and a refresh
 * token) from it.
 */
@Injectable()
export class TokenIssuer {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly grants: OAuthGrantStore,
    private readonly agentTokens: OAuthAccessTokenStore,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly projects: ProjectDirectory,
    private readonly clientPolicies: ClientPolicyRepository,
    private readonly audit: AuditService,
  ) {}

  /** A token request's `resource` (RFC 8707), when it names one, must be this server's MCP endpoint. */
  checkResource(body: Record<string, unknown>): void {
    const resource = singleParam(body, 'resource').value;
    if (resource !== undefined && !isOwnResource(resource, this.config.mcpResourceUrl)) {
      throw new OAuthError('invalid_target', `resource must be ${this.config.mcpResourceUrl}`);
    }
  }

  /**
   * Runs a grant's exchange in one transaction and answers what it issued; a `Failure` it
   * returns is thrown once the transaction has committed what it must keep (a revoked grant).
   */
  async inTransaction(exchange: (em: EntityManager) => Promise<Failure | Issued>): Promise<TokenResponse> {
    const outcome = await this.dataSource.transaction(exchange);
    if (outcome.kind === 'error') throw outcome.error;
    return outcome.response;
  }

  /**
   * The grant behind a code or refresh token, if it still stands: not revoked, its project not
   * deleted, its person still a member of the project's organisation, and the organisation
   * still admitting the client (a policy change revokes such grants; this also covers a consent
   * approved while the policy was changing). The grant row stays locked until the transaction
   * ends (see `OAuthGrantStore.findForUpdate`).
   */
  async liveGrant(em: EntityManager, grantId: string): Promise<OAuthGrant | Failure> {
    const grant = await this.grants.findForUpdate(em, grantId);
    if (!grant || grant.revokedAt) return fail('invalid_grant', 'The grant has been revoked');
    if (!(await this.projects.isReachableBy(grant.userId, grant.organizationId, grant.projectId, em))) {
      return fail('invalid_grant', 'The person who approved this grant can no longer reach its project');
    }
    if (!admitsClient(await this.clientPolicies.find(grant.organizationId, em), grant.clientId)) {
      return fail('invalid_grant', "The organisation's client policy no longer admits this client");
    }
    return grant;
  }

  async issue(
    em: EntityManager,
    client: RegisteredClient,
    grant: OAuthGrant,
    permissions: AgentPermission[],
    refresh: { parentId: string | null; issuedBy: RefreshTokenOrigin } | null,
  ): Promise<TokenResponse> {
    const accessToken = generateToken(TOKEN_PREFIXES.agentAccess);
    const issued = await this.agentTokens.insert(em, {
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
    // `refresh` null: no refresh token (an ID-JAG trade: the client trades a new ID-JAG instead).
    if (refresh && client.grantTypes.includes('refresh_token')) {
      refreshToken = generateToken(TOKEN_PREFIXES.refresh);
      await this.refreshTokens.insert(em, {
        tokenHash: hashToken(refreshToken),
        grantId: grant.id,
        parentId: refresh.parentId,
        issuedBy: refresh.issuedBy,
        ttlSeconds: this.config.refreshTokenTtlSeconds,
      });
    }
    // The token endpoint's outcome (SPEC §10), in the issue's transaction.
    await this.audit.record(em, {
      organizationId: grant.organizationId,
      projectId: grant.projectId,
      actorType: 'oauth_client',
      actorId: client.clientId,
      action: 'token.issued',
      targetType: 'agent_token',
      targetId: issued.id,
      metadata: { grantId: grant.id, userId: grant.userId, clientId: client.clientId, scopes: [...permissions], refreshTokenIssued: refreshToken !== undefined },
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.config.accessTokenTtlSeconds,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: scopeString(permissions),
    };
  }
}
