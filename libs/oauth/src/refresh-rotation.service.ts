import { Injectable } from '@nestjs/common';
import { AuditService, RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { AgentPermission } from '@app/capabilities';
import { CredentialRevoker, RefreshTokenOrigin, RefreshTokenStore, hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';
import type { RegisteredClient } from './oauth-clients.service';
import { OAuthError } from './oauth.errors';
import { scopeTokens, singleParam } from './oauth-params';
import { fail, Failure, TokenIssuer, TokenResponse } from './token-issuer.service';

/**
 * The refresh_token grant with rotation. Exactly one concurrent request rotates a token
 * (conditional update); a request presenting a token rotated at most
 * REFRESH_REUSE_GRACE_SECONDS ago gets a fresh pair in the same grant (parallel refreshes by
 * one client); later, the reuse revokes the whole grant and is audited (RFC 9700 §4.14.2).
 * `scope` may narrow, never widen.
 */
@Injectable()
export class RefreshRotationService {
  constructor(
    private readonly config: AppConfig,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly issuer: TokenIssuer,
    private readonly revoker: CredentialRevoker,
    private readonly audit: AuditService,
  ) {}

  async refresh(client: RegisteredClient, body: Record<string, unknown>, origin: RequestOrigin): Promise<TokenResponse> {
    const presented = singleParam(body, 'refresh_token').value;
    const scope = singleParam(body, 'scope').value;
    if (!presented) throw new OAuthError('invalid_request', 'refresh_token is required');
    this.issuer.checkResource(body);
    if (!isWellFormedToken(presented, TOKEN_PREFIXES.refresh)) throw new OAuthError('invalid_grant', 'The refresh token is invalid');
    const tokenHash = hashToken(presented);
    const grace = this.config.refreshReuseGraceSeconds;

    return this.issuer.inTransaction(async (em) => {
      const token = await this.refreshTokens.findByHash(em, tokenHash);
      if (!token || token.clientId !== client.clientId) return fail('invalid_grant', 'The refresh token is invalid');
      if (token.revoked) return fail('invalid_grant', 'The refresh token has been revoked');
      if (token.expired) return fail('invalid_grant', 'The refresh token has expired');
      const grant = await this.issuer.liveGrant(em, token.grantId);
      if ('kind' in grant) return grant;
      const permissions = narrowScope(scope, grant.permissions);
      if ('kind' in permissions) return permissions;

      let issuedBy: RefreshTokenOrigin = 'rotation';
      const won = !token.rotated && (await this.refreshTokens.rotate(em, token.id));
      if (!won) {
        // Rotated already, by an earlier request or by one that won the race just now.
        const state = await this.refreshTokens.rotationState(em, token.id, grace);
        if (!state || state.revoked) return fail('invalid_grant', 'The refresh token has been revoked');
        if (!state.inGrace) {
          const actor = { actorType: 'oauth_client', actorId: client.clientId, origin };
          await this.revoker.revokeGrant(em, grant.id, 'refresh_token_reuse', actor);
          await this.audit.record(em, {
            organizationId: grant.organizationId,
            projectId: grant.projectId,
            ...actor,
            action: 'refresh_token.reuse_detected',
            targetType: 'oauth_grant',
            targetId: grant.id,
            metadata: { refreshTokenId: token.id, clientId: client.clientId, userId: grant.userId, graceSeconds: grace },
          });
          return fail('invalid_grant', 'The refresh token was already used; the grant has been revoked');
        }
        issuedBy = 'grace';
      }
      const response = await this.issuer.issue(em, client, grant, permissions, { parentId: token.id, issuedBy });
      return { kind: 'issued', response };
    });
  }
}

/**
 * The permissions of a refreshed access token: all of the grant's when `scope` is absent (RFC
 * 6749 §6), otherwise the named subset; naming anything the grant lacks is `invalid_scope`.
 * `offline_access` is ignored (some clients add it everywhere).
 */
function narrowScope(scope: string | undefined, granted: AgentPermission[]): AgentPermission[] | Failure {
  if (scope === undefined) return granted;
  const requested = scopeTokens(scope).filter((s) => s !== 'offline_access');
  if (requested.length === 0) return granted;
  const beyond = requested.filter((s) => !granted.includes(s as AgentPermission));
  if (beyond.length) return fail('invalid_scope', `The grant does not include ${beyond.join(', ')}; a refresh may narrow the scope, never widen it`);
  return granted.filter((p) => requested.includes(p));
}
