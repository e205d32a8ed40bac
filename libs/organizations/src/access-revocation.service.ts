import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { queryReturning } from '@app/database';

export interface RevokedAccess {
  /** Agent tokens (`dga_`: OAuth access tokens and derived project tokens) revoked. */
  revokedTokens: number;
}

/**
 * What a person or a project loses when they leave: every credential that opened capabilities
 * through them. Always called inside the transaction that makes the change (with its
 * EntityManager), so the removal and the revocations commit together.
 *
 * The place to extend when new credential kinds appear (OAuth grants and their refresh tokens).
 */
@Injectable()
export class AccessRevocationService {
  /** A member was removed from an organisation: their agent tokens in it stop working. */
  async revokeMemberAccess(em: EntityManager, organizationId: string, userId: string): Promise<RevokedAccess> {
    const tokens = await queryReturning<{ id: string }>(
      em,
      `UPDATE agent_tokens SET revoked_at = now()
        WHERE user_id = $1 AND organization_id = $2 AND revoked_at IS NULL
        RETURNING id`,
      [userId, organizationId],
    );
    return { revokedTokens: tokens.length };
  }

  /** A project was deleted: every agent token bound to it stops working. */
  async revokeProjectAccess(em: EntityManager, projectId: string): Promise<RevokedAccess> {
    const tokens = await queryReturning<{ id: string }>(
      em,
      `UPDATE agent_tokens SET revoked_at = now() WHERE project_id = $1 AND revoked_at IS NULL RETURNING id`,
      [projectId],
    );
    return { revokedTokens: tokens.length };
  }
}
