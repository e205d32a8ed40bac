import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { isUuid, queryReturning } from '@app/database';
import { ServiceKey } from '../entities/service-key.entity';
import type { AgentPermission } from '@app/capabilities';

/** The `service_keys` table. The only code that reads or writes it. */
@Injectable()
export class ServiceKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  create(em: EntityManager, key: { organizationId: string; name: string; permissions: AgentPermission[]; createdBy: string | null }): Promise<ServiceKey> {
    const repository = em.getRepository(ServiceKey);
    return repository.save(repository.create(key));
  }

  /**
   * A page of the organisation's keys, newest first, after the key `afterId` when given (keyset
   * over `(created_at, id)`, compared in the database at full precision; a key of another
   * organisation gives an empty page).
   */
  pageForOrganization(organizationId: string, limit: number, afterId?: string): Promise<ServiceKey[]> {
    const query = this.dataSource.getRepository(ServiceKey).createQueryBuilder('k').where('k.organization_id = :organizationId', { organizationId });
    if (afterId) {
      query.andWhere(
        '(k.created_at, k.id) < (SELECT a.created_at, a.id FROM service_keys a WHERE a.id = :afterId AND a.organization_id = :organizationId)',
        { afterId },
      );
    }
    return query.orderBy('k.createdAt', 'DESC').addOrderBy('k.id', 'DESC').limit(limit).getMany();
  }

  /** The names of an organisation's keys (revoked ones too), by id. */
  async namesOf(organizationId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids)].filter(isUuid);
    if (!wanted.length) return new Map();
    const rows = await this.dataSource.getRepository(ServiceKey).find({ select: { id: true, name: true }, where: { organizationId, id: In(wanted) } });
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  find(em: EntityManager, organizationId: string, id: string): Promise<ServiceKey | null> {
    return em.getRepository(ServiceKey).findOneBy({ id, organizationId });
  }

  /**
   * The key, share-locked until the transaction ends: a concurrent revoke waits for what this
   * transaction derives from it (and then revokes that too).
   */
  findForShare(em: EntityManager, organizationId: string, id: string): Promise<ServiceKey | null> {
    return em.getRepository(ServiceKey).findOne({ where: { id, organizationId }, lock: { mode: 'pessimistic_read' } });
  }

  /** Conditional: the revocation time, or null when the key is unknown or was already revoked. */
  async revoke(em: EntityManager, organizationId: string, id: string): Promise<Date | null> {
    const [row] = await queryReturning<{ revoked_at: Date }>(
      em,
      `UPDATE service_keys SET revoked_at = now()
        WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL
        RETURNING revoked_at`,
      [id, organizationId],
    );
    return row?.revoked_at ?? null;
  }

  /** The live keys a person created in an organisation (what they may have handed to machines). */
  liveCreatedBy(em: EntityManager, organizationId: string, userId: string): Promise<ServiceKey[]> {
    return em.getRepository(ServiceKey).find({
      where: { organizationId, createdBy: userId, revokedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }
}
