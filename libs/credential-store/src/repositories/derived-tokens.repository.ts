import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { queryReturning, queryAffected } from '@app/database';
import type { AgentPermission } from '@app/capabilities';
import { AgentToken } from '../entities/agent-token.entity';

/**
 * The `agent_tokens` rows of project tokens derived from service keys: their lists, the rotation
 * of one (its overlap) and its revocation. The rest of the table (the request path's lookup, OAuth
 * access tokens, the cascades) is `AgentTokensRepository`'s.
 */
@Injectable()
export class DerivedTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The project tokens derived from the given service keys, oldest first. */
  listForServiceKeys(em: EntityManager, serviceKeyIds: string[]): Promise<AgentToken[]> {
    if (serviceKeyIds.length === 0) return Promise.resolve([]);
    return em.getRepository(AgentToken).find({
      where: { serviceKeyId: In(serviceKeyIds) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** A page of the tokens derived from one key, oldest first, after the token `afterId` when given (keyset over `(created_at, id)`). */
  pageForServiceKey(em: EntityManager, serviceKeyId: string, limit: number, afterId?: string): Promise<AgentToken[]> {
    const query = em.getRepository(AgentToken).createQueryBuilder('t').where('t.service_key_id = :serviceKeyId', { serviceKeyId });
    if (afterId) {
      query.andWhere(
        '(t.created_at, t.id) > (SELECT a.created_at, a.id FROM agent_tokens a WHERE a.id = :afterId AND a.service_key_id = :serviceKeyId)',
        { afterId },
      );
    }
    return query.orderBy('t.createdAt', 'ASC').addOrderBy('t.id', 'ASC').limit(limit).getMany();
  }

  findDerived(em: EntityManager, organizationId: string, serviceKeyId: string, tokenId: string): Promise<AgentToken | null> {
    return em.getRepository(AgentToken).findOne({ where: { id: tokenId, serviceKeyId, organizationId } });
  }

  /** Conditional: null when the token is unknown or was already revoked. */
  /**
   * Revokes one derived token and, when it is the active token of its (key, project), the token
   * it replaced that is still rotating out: the one rotated away from is no safer than the new
   * one (the same machine held both), so revoking the new secret must not leave the old one
   * working until its overlap ends. Revoking the token rotating out ends only that one (the
   * overlap ended early). One statement: the target row is locked first, so a rotation of it
   * running at the same moment either commits before (and its new token stays, the old one is
   * the target) or waits.
   */
  async revokeDerived(
    em: EntityManager,
    organizationId: string,
    serviceKeyId: string,
    tokenId: string,
  ): Promise<{ projectId: string; revokedAt: Date; alsoRevoked: string[] } | null> {
    const rows = await queryReturning<{ id: string; project_id: string; revoked_at: Date }>(
      em,
      `WITH target AS (
         SELECT id, project_id, expires_at FROM agent_tokens
          WHERE id = $1 AND service_key_id = $2 AND organization_id = $3 AND revoked_at IS NULL
          FOR UPDATE
       )
       UPDATE agent_tokens a SET revoked_at = now()
         FROM target
        WHERE a.revoked_at IS NULL
          AND (a.id = target.id
               OR (target.expires_at IS NULL AND a.service_key_id = $2 AND a.project_id = target.project_id AND a.expires_at IS NOT NULL))
        RETURNING a.id, a.project_id, a.revoked_at`,
      [tokenId, serviceKeyId, organizationId],
    );
    const row = rows.find((r) => r.id === tokenId);
    return row ? { projectId: row.project_id, revokedAt: row.revoked_at, alsoRevoked: rows.filter((r) => r.id !== tokenId).map((r) => r.id) } : null;
  }

  /**
   * A derived token whose overlap has ended, or whose chosen expiry has passed, is refused by the
   * lookup already; this marks it revoked (when it ended) so it frees the (key, project)'s slot.
   */
  retireEndedRotation(em: EntityManager, serviceKeyId: string, projectId: string): Promise<number> {
    return queryAffected(
      em,
      `UPDATE agent_tokens SET revoked_at = LEAST(coalesce(expires_at, 'infinity'::timestamptz), coalesce(valid_until, 'infinity'::timestamptz))
        WHERE service_key_id = $1 AND project_id = $2 AND revoked_at IS NULL
          AND ((expires_at IS NOT NULL AND expires_at <= now()) OR (valid_until IS NOT NULL AND valid_until <= now()))`,
      [serviceKeyId, projectId],
    );
  }

  /** The derived token of (key, project) still rotating out, if any. */
  findRotatingOut(em: EntityManager, serviceKeyId: string, projectId: string): Promise<AgentToken | null> {
    return em
      .getRepository(AgentToken)
      .createQueryBuilder('t')
      .where('t.serviceKeyId = :serviceKeyId AND t.projectId = :projectId', { serviceKeyId, projectId })
      .andWhere('t.revokedAt IS NULL AND t.expiresAt > now()')
      .getOne();
  }

  /**
   * Conditional: starts the overlap of an active derived token (it keeps working until
   * now + `overlapSeconds`, by the database's clock). Null when the token is unknown, revoked
   * or already rotating out. A concurrent second rotation waits for this row and then finds it
   * no longer active; a second token rotating out of the same (key, project) breaks the unique
   * index `agent_tokens_one_rotating_per_key_project`.
   */
  async startRotation(
    em: EntityManager,
    organizationId: string,
    serviceKeyId: string,
    tokenId: string,
    overlapSeconds: number,
  ): Promise<{ projectId: string; permissions: AgentPermission[]; expiresAt: Date; validUntil: Date | null } | null> {
    const [row] = await queryReturning<{ project_id: string; permissions: AgentPermission[]; expires_at: Date; valid_until: Date | null }>(
      em,
      `UPDATE agent_tokens SET expires_at = now() + make_interval(secs => $4)
        WHERE id = $1 AND service_key_id = $2 AND organization_id = $3 AND revoked_at IS NULL AND expires_at IS NULL
          AND (valid_until IS NULL OR valid_until > now())
        RETURNING project_id, permissions, expires_at, valid_until`,
      [tokenId, serviceKeyId, organizationId, Math.trunc(overlapSeconds)],
    );
    return row ? { projectId: row.project_id, permissions: row.permissions, expiresAt: row.expires_at, validUntil: row.valid_until } : null;
  }

  /** The live project tokens derived from these service keys. */
  async liveDerivedFrom(em: EntityManager, serviceKeyIds: string[]): Promise<{ id: string; serviceKeyId: string; projectId: string }[]> {
    if (!serviceKeyIds.length) return [];
    const rows = await em.getRepository(AgentToken).find({
      where: { serviceKeyId: In(serviceKeyIds), revokedAt: IsNull() },
      select: { id: true, serviceKeyId: true, projectId: true, createdAt: true, expiresAt: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    const now = Date.now();
    return rows.filter((r) => !r.expiresAt || r.expiresAt.getTime() > now).map((r) => ({ id: r.id, serviceKeyId: r.serviceKeyId!, projectId: r.projectId }));
  }

  /** How many project tokens derived from service keys are live on the project (active or still rotating out). */
  countLiveDerivedForProject(projectId: string): Promise<number> {
    return this.dataSource
      .getRepository(AgentToken)
      .createQueryBuilder('t')
      .where("t.projectId = :projectId AND t.source = 'service_key' AND t.revokedAt IS NULL", { projectId })
      .andWhere('(t.expiresAt IS NULL OR t.expiresAt > now())')
      .getCount();
  }
}
