import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { RequestOrigin } from '@app/audit';
import { queryReturning } from '@app/database';
import { OAuthGrantsService } from '@app/oauth';

export interface RevokedAccess {
  /** Agent tokens (`dga_`: OAuth access tokens and derived project tokens) revoked. */
  revokedTokens: number;
  /** OAuth grants ended (with their refresh tokens), so their clients cannot refresh. */
  revokedGrants: number;
}

/** Who made the change, for the audit events of the grants it ends. */
export interface RevocationContext {
  actorType: string;
  actorId: string | null;
  origin?: RequestOrigin;
}

/**
 * What a person or a project loses when they leave: every credential that opened capabilities
 * through them — agent tokens, and the OAuth grants behind OAuth access tokens with their
 * refresh tokens. Always called inside the transaction that makes the change (with its
 * EntityManager), so the removal and the revocations commit together.
 */
@Injectable()
export class AccessRevocationService {
  constructor(private readonly grants: OAuthGrantsService) {}

  /** A member was removed from an organisation: their agent tokens and grants in it stop working. */
  async revokeMemberAccess(
    em: EntityManager,
    organizationId: string,
    userId: string,
    context: RevocationContext = { actorType: 'system', actorId: null },
  ): Promise<RevokedAccess> {
    const tokens = await queryReturning<{ id: string }>(
      em,
      `UPDATE agent_tokens SET revoked_at = now()
        WHERE user_id = $1 AND organization_id = $2 AND revoked_at IS NULL
        RETURNING id`,
      [userId, organizationId],
    );
    const revokedGrants = await this.grants.revokeGrantsForMember(em, userId, organizationId, context);
    return { revokedTokens: tokens.length, revokedGrants };
  }

  /** A project was deleted: every agent token bound to it and every grant on it stop working. */
  async revokeProjectAccess(
    em: EntityManager,
    projectId: string,
    context: RevocationContext = { actorType: 'system', actorId: null },
  ): Promise<RevokedAccess> {
    const tokens = await queryReturning<{ id: string }>(
      em,
      `UPDATE agent_tokens SET revoked_at = now() WHERE project_id = $1 AND revoked_at IS NULL RETURNING id`,
      [projectId],
    );
    const revokedGrants = await this.grants.revokeGrantsForProject(em, projectId, context);
    return { revokedTokens: tokens.length, revokedGrants };
  }
}
