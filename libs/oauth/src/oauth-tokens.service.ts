import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { AgentPermission, generateToken, hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credentials';
import type { RefreshTokenOrigin } from './entities/refresh-token.entity';
import { queryReturning } from '@app/database';
import { ProjectDirectory } from '@app/tenancy';
import { OAuthClientsService, PresentedClientCredentials, RegisteredClient } from './oauth-clients.service';
import { OAuthGrantsService } from './oauth-grants.service';
import { OAuthError } from './oauth.errors';
import { isOwnResource, scopeString, scopeTokens, singleParam, verifyPkce } from './oauth-params';

/** RFC 6749 §5.1 successful token response. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

interface GrantRow {
  id: string;
  user_id: string;
  client_id: string;
  organization_id: string;
  project_id: string;
  permissions: AgentPermission[];
  revoked_at: Date | null;
}

type Failure = { kind: 'error'; error: OAuthError };
type Issued = { kind: 'issued'; response: TokenResponse };

/**
 * The token endpoint (authorization_code and refresh_token grants) and revocation (RFC 7009).
 * Single use is enforced by conditional updates, never read-then-write: exactly one request
 * can consume a code or rotate a refresh token.
 */
@Injectable()
export class OAuthTokensService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly clients: OAuthClientsService,
    private readonly grants: OAuthGrantsService,
    private readonly audit: AuditService,
    private readonly projects: ProjectDirectory,
  ) {}

  async token(body: Record<string, unknown>, authorizationHeader: string | undefined, origin: RequestOrigin): Promise<TokenResponse> {
    for (const name of ['grant_type', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'scope', 'resource', 'client_id', 'client_secret']) {
      if (singleParam(body, name).duplicate) throw new OAuthError('invalid_request', `${name} was sent more than once`);
    }
    const grantType = singleParam(body, 'grant_type').value;
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported; use authorization_code or refresh_token`);
    }
    const client = await this.clients.authenticate(presentedCredentials(body, authorizationHeader));
    if (!client.grantTypes.includes(grantType)) {
      throw new OAuthError('unauthorized_client', `This client did not register the ${grantType} grant type`);
    }
    return grantType === 'authorization_code' ? this.exchangeCode(client, body, origin) : this.refresh(client, body, origin);
  }

  /**
   * authorization_code: the code is consumed by a conditional update before anything else is
   * checked, so a failed attempt also burns it. A code presented again is a replay: the grant
   * it produced is revoked with every token issued from it (RFC 6749 §4.1.2, RFC 9700 §4.5).
   */
  private async exchangeCode(client: RegisteredClient, body: Record<string, unknown>, origin: RequestOrigin): Promise<TokenResponse> {
    const code = singleParam(body, 'code').value;
    const verifier = singleParam(body, 'code_verifier').value;
    const redirectUri = singleParam(body, 'redirect_uri').value;
    const resource = singleParam(body, 'resource').value;
    if (!code) throw new OAuthError('invalid_request', 'code is required');
    if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
    if (resource !== undefined && !isOwnResource(resource, this.config.mcpResourceUrl)) {
      throw new OAuthError('invalid_target', `resource must be ${this.config.mcpResourceUrl}`);
    }
    if (!isWellFormedToken(code, TOKEN_PREFIXES.authorizationCode)) {
      throw new OAuthError('invalid_grant', 'The authorization code is invalid');
    }

    const outcome = await this.dataSource.transaction(async (em): Promise<Failure | Issued> => {
      const [row] = await queryReturning<{
        grant_id: string;
        client_id: string;
        redirect_uri: string;
        redirect_uri_sent: boolean;
        code_challenge: string;
        expired: boolean;
      }>(
        em,
        `UPDATE oauth_authorization_codes SET used_at = now()
          WHERE code_hash = $1 AND used_at IS NULL
         RETURNING grant_id, client_id, redirect_uri, redirect_uri_sent, code_challenge, expires_at <= now() AS expired`,
        [hashToken(code)],
      );
      if (!row) {
        const [used]: { grant_id: string }[] = await em.query('SELECT grant_id FROM oauth_authorization_codes WHERE code_hash = $1', [hashToken(code)]);
        if (used) {
          await this.grants.revoke(em, used.grant_id, {
            actorType: 'oauth_client',
            actorId: client.clientId,
            reason: 'authorization_code_replay',
            origin,
          });
          return fail('invalid_grant', 'The authorization code was already used; every token issued from it has been revoked');
        }
        return fail('invalid_grant', 'The authorization code is invalid');
      }
      if (row.client_id !== client.clientId) return fail('invalid_grant', 'The authorization code was issued to another client');
      if (row.expired) return fail('invalid_grant', 'The authorization code has expired');
      if (row.redirect_uri_sent ? redirectUri !== row.redirect_uri : redirectUri !== undefined && redirectUri !== row.redirect_uri) {
        return fail('invalid_grant', 'redirect_uri does not match the one of the authorization request');
      }
      if (!verifyPkce(verifier, row.code_challenge)) return fail('invalid_grant', 'code_verifier does not match the code_challenge');
      const grant = await this.liveGrant(em, row.grant_id);
      if ('kind' in grant) return grant;
      const response = await this.issue(em, client, grant, grant.permissions, { parentId: null, issuedBy: 'authorization_code' });
      return { kind: 'issued', response };
    });
    if (outcome.kind === 'error') throw outcome.error;
    return outcome.response;
  }

  /**
   * refresh_token with rotation. Exactly one concurrent request rotates a token (conditional
   * update); a request presenting a token rotated at most REFRESH_REUSE_GRACE_SECONDS ago gets a
   * fresh pair in the same grant (parallel refreshes by one client); later, the reuse revokes
   * the whole grant and is audited (RFC 9700 §4.14.2). `scope` may narrow, never widen.
   */
  private async refresh(client: RegisteredClient, body: Record<string, unknown>, origin: RequestOrigin): Promise<TokenResponse> {
    const presented = singleParam(body, 'refresh_token').value;
    const scope = singleParam(body, 'scope').value;
    const resource = singleParam(body, 'resource').value;
    if (!presented) throw new OAuthError('invalid_request', 'refresh_token is required');
    if (resource !== undefined && !isOwnResource(resource, this.config.mcpResourceUrl)) {
      throw new OAuthError('invalid_target', `resource must be ${this.config.mcpResourceUrl}`);
    }
    if (!isWellFormedToken(presented, TOKEN_PREFIXES.refresh)) throw new OAuthError('invalid_grant', 'The refresh token is invalid');
    const tokenHash = hashToken(presented);
    const grace = this.config.refreshReuseGraceSeconds;

    const outcome = await this.dataSource.transaction(async (em): Promise<Failure | Issued> => {
      const [token]: {
        id: string;
        grant_id: string;
        client_id: string;
        rotated: boolean;
        revoked: boolean;
        expired: boolean;
      }[] = await em.query(
        `SELECT r.id, r.grant_id, g.client_id, r.rotated_at IS NOT NULL AS rotated, r.revoked_at IS NOT NULL AS revoked,
                r.expires_at <= now() AS expired
           FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id
          WHERE r.token_hash = $1`,
        [tokenHash],
      );
      if (!token || token.client_id !== client.clientId) return fail('invalid_grant', 'The refresh token is invalid');
      if (token.revoked) return fail('invalid_grant', 'The refresh token has been revoked');
      if (token.expired) return fail('invalid_grant', 'The refresh token has expired');
      const grant = await this.liveGrant(em, token.grant_id);
      if ('kind' in grant) return grant;
      const permissions = narrowScope(scope, grant.permissions);
      if ('kind' in permissions) return permissions;

      let issuedBy: RefreshTokenOrigin = 'rotation';
      const won = token.rotated
        ? []
        : await queryReturning(
            em,
            `UPDATE oauth_refresh_tokens SET rotated_at = now()
              WHERE id = $1 AND rotated_at IS NULL AND revoked_at IS NULL RETURNING id`,
            [token.id],
          );
      if (won.length === 0) {
        // Rotated already, by an earlier request or by one that won the race just now.
        const [state]: { revoked: boolean; in_grace: boolean }[] = await em.query(
          `SELECT revoked_at IS NOT NULL AS revoked, rotated_at > now() - make_interval(secs => $2) AS in_grace
             FROM oauth_refresh_tokens WHERE id = $1`,
          [token.id, grace],
        );
        if (!state || state.revoked) return fail('invalid_grant', 'The refresh token has been revoked');
        if (!state.in_grace) {
          await this.grants.revoke(em, grant.id, { actorType: 'oauth_client', actorId: client.clientId, reason: 'refresh_token_reuse', origin });
          await this.audit.record(em, {
            organizationId: grant.organization_id,
            projectId: grant.project_id,
            actorType: 'oauth_client',
            actorId: client.clientId,
            action: 'refresh_token.reuse_detected',
            targetType: 'oauth_grant',
            targetId: grant.id,
            metadata: { refreshTokenId: token.id, clientId: client.clientId, userId: grant.user_id, graceSeconds: grace },
            origin,
          });
          return fail('invalid_grant', 'The refresh token was already used; the grant has been revoked');
        }
        issuedBy = 'grace';
      }
      const response = await this.issue(em, client, grant, permissions, { parentId: token.id, issuedBy });
      return { kind: 'issued', response };
    });
    if (outcome.kind === 'error') throw outcome.error;
    return outcome.response;
  }

  /**
   * RFC 7009: a refresh token revokes its grant (and every access token of it); an access token
   * revokes itself. Unknown tokens, and tokens of another client, change nothing and still
   * answer 200, so the endpoint reveals nothing.
   */
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
        const [row]: { grant_id: string; client_id: string }[] = await em.query(
          `SELECT r.grant_id, g.client_id FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id WHERE r.token_hash = $1`,
          [hashToken(token)],
        );
        if (!row || (client && row.client_id !== client.clientId)) return;
        await this.grants.revoke(em, row.grant_id, {
          actorType: 'oauth_client',
          actorId: row.client_id,
          reason: 'revoked_by_client',
          origin,
        });
      });
      return;
    }
    if (isWellFormedToken(token, TOKEN_PREFIXES.agentAccess)) {
      await this.dataSource.query(
        `UPDATE agent_tokens SET revoked_at = now()
          WHERE token_hash = $1 AND source = 'oauth' AND revoked_at IS NULL AND ($2::text IS NULL OR client_id = $2)`,
        [hashToken(token), client?.clientId ?? null],
      );
    }
  }

  /**
   * The grant behind a code or refresh token, if it still stands: not revoked, its project not
   * deleted, and its person still a member of the project's organisation.
   */
  private async liveGrant(em: EntityManager, grantId: string): Promise<GrantRow | Failure> {
    const [grant]: GrantRow[] = await em.query(
      `SELECT id, user_id, client_id, organization_id, project_id, permissions, revoked_at FROM oauth_grants WHERE id = $1`,
      [grantId],
    );
    if (!grant || grant.revoked_at) return fail('invalid_grant', 'The grant has been revoked');
    if (!(await this.projects.isReachableBy(grant.user_id, grant.organization_id, grant.project_id, em))) {
      return fail('invalid_grant', 'The person who approved this grant can no longer reach its project');
    }
    return grant;
  }

  private async issue(
    em: EntityManager,
    client: RegisteredClient,
    grant: GrantRow,
    permissions: AgentPermission[],
    refresh: { parentId: string | null; issuedBy: RefreshTokenOrigin },
  ): Promise<TokenResponse> {
    const accessToken = generateToken(TOKEN_PREFIXES.agentAccess);
    await em.query(
      `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, grant_id, client_id, user_id, expires_at)
       VALUES ($1, 'oauth', $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
      [hashToken(accessToken), grant.organization_id, grant.project_id, permissions, grant.id, client.clientId, grant.user_id, this.config.accessTokenTtlSeconds],
    );
    let refreshToken: string | undefined;
    if (client.grantTypes.includes('refresh_token')) {
      refreshToken = generateToken(TOKEN_PREFIXES.refresh);
      await em.query(
        `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, parent_id, issued_by, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
        [hashToken(refreshToken), grant.id, refresh.parentId, refresh.issuedBy, this.config.refreshTokenTtlSeconds],
      );
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

function fail(error: 'invalid_grant' | 'invalid_scope', description: string): Failure {
  return { kind: 'error', error: new OAuthError(error, description) };
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

function presentedCredentials(body: Record<string, unknown>, authorizationHeader: string | undefined): PresentedClientCredentials {
  return {
    authorizationHeader: authorizationHeader && /^Basic\b/i.test(authorizationHeader) ? authorizationHeader : undefined,
    clientId: singleParam(body, 'client_id').value,
    clientSecret: singleParam(body, 'client_secret').value,
  };
}
