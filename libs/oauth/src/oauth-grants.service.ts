import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { NotFoundError } from '@app/common';
import type { AgentPermission } from '@app/credentials';
import { isUuid, queryReturning } from '@app/database';

/** Who ended a grant, for the audit trail. */
export interface GrantRevocationContext {
  actorType: string;
  actorId?: string | null;
  reason: GrantRevocationReason;
  origin?: RequestOrigin;
}

export type GrantRevocationReason =
  | 'revoked_by_user'
  | 'revoked_by_client'
  | 'authorization_code_replay'
  | 'refresh_token_reuse'
  | 'member_removed'
  | 'project_deleted';

export interface AgentGrantView {
  id: string;
  client: { id: string; name: string };
  project: { id: string; name: string };
  organization: { id: string; name: string };
  permissions: AgentPermission[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface GrantRevocationResult {
  id: string;
  status: 'revoked';
  revokedAt: Date;
  revokedTokens: number;
}

interface RevokedGrantRow {
  id: string;
  organization_id: string;
  project_id: string;
  client_id: string;
  user_id: string;
  revoked_at: Date;
}

/**
 * Grants: what a person approved for one client on one project. Revoking a grant ends its
 * refresh tokens and access tokens in the same transaction; a new consent never ends the
 * person's other grants.
 */
@Injectable()
export class OAuthGrantsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  /** The person's connected clients: live grants that produced tokens, newest first. */
  async listForUser(userId: string): Promise<AgentGrantView[]> {
    const rows: {
      id: string;
      client_id: string;
      client_name: string;
      project_id: string;
      project_name: string;
      organization_id: string;
      organization_name: string;
      permissions: AgentPermission[];
      created_at: Date;
      last_used_at: Date | null;
    }[] = await this.dataSource.query(
      `SELECT g.id, g.client_id, c.client_name, g.project_id, p.name AS project_name,
              g.organization_id, o.name AS organization_name, g.permissions, g.created_at,
              (SELECT max(greatest(t.last_used_at, t.created_at)) FROM agent_tokens t WHERE t.grant_id = g.id) AS last_used_at
         FROM oauth_grants g
         JOIN oauth_clients c ON c.client_id = g.client_id
         JOIN projects p ON p.id = g.project_id AND p.deleted_at IS NULL
         JOIN organizations o ON o.id = g.organization_id
        WHERE g.user_id = $1 AND g.revoked_at IS NULL
          AND EXISTS (SELECT 1 FROM agent_tokens t WHERE t.grant_id = g.id)
        ORDER BY g.created_at DESC, g.id`,
      [userId],
    );
    return rows.map((r) => ({
      id: r.id,
      client: { id: r.client_id, name: r.client_name },
      project: { id: r.project_id, name: r.project_name },
      organization: { id: r.organization_id, name: r.organization_name },
      permissions: r.permissions,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
    }));
  }

  /** The person revokes one of their own grants; another person's grant is "not found". Idempotent. */
  async revokeForUser(userId: string, grantId: string, origin: RequestOrigin): Promise<GrantRevocationResult> {
    if (!isUuid(grantId)) throw new NotFoundError('Grant');
    return this.dataSource.transaction(async (em) => {
      const owned: { id: string; revoked_at: Date | null }[] = await em.query(
        'SELECT id, revoked_at FROM oauth_grants WHERE id = $1 AND user_id = $2',
        [grantId, userId],
      );
      if (!owned[0]) throw new NotFoundError('Grant');
      if (owned[0].revoked_at) return { id: grantId, status: 'revoked' as const, revokedAt: owned[0].revoked_at, revokedTokens: 0 };
      const result = await this.revoke(em, grantId, { actorType: 'user', actorId: userId, reason: 'revoked_by_user', origin });
      return result ?? { id: grantId, status: 'revoked' as const, revokedAt: new Date(), revokedTokens: 0 };
    });
  }

  /**
   * Ends one grant inside the caller's transaction: the grant, its refresh tokens and its access
   * tokens, plus a `grant.revoked` audit event. Null when it was already revoked.
   */
  async revoke(em: EntityManager, grantId: string, context: GrantRevocationContext): Promise<GrantRevocationResult | null> {
    const [grant] = await queryReturning<RevokedGrantRow>(
      em,
      `UPDATE oauth_grants SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL
       RETURNING id, organization_id, project_id, client_id, user_id, revoked_at`,
      [grantId],
    );
    if (!grant) return null;
    return this.endTokensAndRecord(em, grant, context);
  }

  /**
   * Ends every live grant of a person in an organisation (member removal), in the caller's
   * transaction. Returns how many grants ended.
   */
  async revokeGrantsForMember(
    em: EntityManager,
    userId: string,
    organizationId: string,
    context: Omit<GrantRevocationContext, 'reason'> = { actorType: 'system' },
  ): Promise<number> {
    const grants = await queryReturning<RevokedGrantRow>(
      em,
      `UPDATE oauth_grants SET revoked_at = now()
        WHERE user_id = $1 AND organization_id = $2 AND revoked_at IS NULL
       RETURNING id, organization_id, project_id, client_id, user_id, revoked_at`,
      [userId, organizationId],
    );
    for (const grant of grants) await this.endTokensAndRecord(em, grant, { ...context, reason: 'member_removed' });
    return grants.length;
  }

  /** Ends every live grant on a project (project deletion), in the caller's transaction. */
  async revokeGrantsForProject(
    em: EntityManager,
    projectId: string,
    context: Omit<GrantRevocationContext, 'reason'> = { actorType: 'system' },
  ): Promise<number> {
    const grants = await queryReturning<RevokedGrantRow>(
      em,
      `UPDATE oauth_grants SET revoked_at = now()
        WHERE project_id = $1 AND revoked_at IS NULL
       RETURNING id, organization_id, project_id, client_id, user_id, revoked_at`,
      [projectId],
    );
    for (const grant of grants) await this.endTokensAndRecord(em, grant, { ...context, reason: 'project_deleted' });
    return grants.length;
  }

  private async endTokensAndRecord(em: EntityManager, grant: RevokedGrantRow, context: GrantRevocationContext): Promise<GrantRevocationResult> {
    await em.query('UPDATE oauth_refresh_tokens SET revoked_at = now() WHERE grant_id = $1 AND revoked_at IS NULL', [grant.id]);
    const tokens = await queryReturning(
      em,
      'UPDATE agent_tokens SET revoked_at = now() WHERE grant_id = $1 AND revoked_at IS NULL RETURNING id',
      [grant.id],
    );
    await this.audit.record(em, {
      organizationId: grant.organization_id,
      projectId: grant.project_id,
      actorType: context.actorType,
      actorId: context.actorId ?? null,
      action: 'grant.revoked',
      targetType: 'oauth_grant',
      targetId: grant.id,
      metadata: { reason: context.reason, clientId: grant.client_id, userId: grant.user_id, revokedAccessTokens: tokens.length },
      origin: context.origin,
    });
    return { id: grant.id, status: 'revoked', revokedAt: grant.revoked_at, revokedTokens: tokens.length };
  }
}
