import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { queryReturning } from '@app/database';
import { ApiKey } from '../entities/api-key.entity';
import type { ApiKeyPermission } from '../permissions';

/** The `api_keys` table (scoped `rk_` keys). The only code that reads or writes it. */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One indexed lookup by digest; revoked and expired keys are not found. */
  findLiveByHash(keyHash: string): Promise<ApiKey | null> {
    return this.dataSource
      .getRepository(ApiKey)
      .createQueryBuilder('k')
      .where('k.keyHash = :keyHash', { keyHash })
      .andWhere('k.revokedAt IS NULL')
      .andWhere('(k.expiresAt IS NULL OR k.expiresAt > now())')
      .getOne();
  }

  async create(
    em: EntityManager,
    key: { organizationId: string; name: string; keyHash: string; permissions: ApiKeyPermission[]; createdBy: string; expiresAt: Date | null },
  ): Promise<ApiKey> {
    const repository = em.getRepository(ApiKey);
    const { id } = (await repository.insert(key)).identifiers[0] as { id: string };
    return repository.findOneByOrFail({ id });
  }

  listForOrganization(organizationId: string): Promise<ApiKey[]> {
    return this.dataSource.getRepository(ApiKey).find({ where: { organizationId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  find(em: EntityManager, organizationId: string, id: string): Promise<ApiKey | null> {
    return em.getRepository(ApiKey).findOneBy({ id, organizationId });
  }

  /** Conditional: null when the key is unknown or was already revoked. */
  async revoke(em: EntityManager, organizationId: string, id: string): Promise<{ name: string; revokedAt: Date } | null> {
    const [row] = await queryReturning<{ name: string; revoked_at: Date }>(
      em,
      `UPDATE api_keys SET revoked_at = now()
        WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL
        RETURNING name, revoked_at`,
      [id, organizationId],
    );
    return row ? { name: row.name, revokedAt: row.revoked_at } : null;
  }

  /** Writes batched `last_used_at` values in one statement; a stored later use is kept. */
  async recordUses(uses: Map<string, Date>): Promise<void> {
    const ids = [...uses.keys()];
    await this.dataSource.query(
      `UPDATE api_keys AS t SET last_used_at = u.used_at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
        WHERE t.id = u.id AND (t.last_used_at IS NULL OR t.last_used_at < u.used_at)`,
      [ids, ids.map((id) => uses.get(id)!.toISOString())],
    );
  }
}
