import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { KEYSET_SQL, KeysetPosition } from '@app/common';
import { isUuid, queryAffected, queryReturning } from '@app/database';
import { ApiKey } from '../entities/api-key.entity';
import type { ApiKeyPermission } from '../api-key-permissions';

/** The `api_keys` table (scoped `rk_` keys). The only code that reads or writes it. */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One indexed lookup by digest; revoked and expired keys are not found, nor a key whose
   * creator is no longer an admin of its organisation (a key never does more than its creator
   * may do now). The creator's role is read in the same query (a primary-key probe of
   * `memberships`, read-only), so the check costs no extra round trip.
   */
  findLiveByHash(keyHash: string): Promise<ApiKey | null> {
    return this.dataSource
      .getRepository(ApiKey)
      .createQueryBuilder('k')
      .where('k.keyHash = :keyHash', { keyHash })
      .andWhere('k.revokedAt IS NULL')
      .andWhere('(k.expiresAt IS NULL OR k.expiresAt > now())')
      .andWhere(
        `(k.createdBy IS NULL OR EXISTS (SELECT 1 FROM memberships m
           WHERE m.organization_id = k.organization_id AND m.user_id = k.created_by AND m.role = 'admin'))`,
      )
      .getOne();
  }

  /**
   * The live keys a person created in an organisation, ended (revoked) or handed over to
   * another admin (`handOverTo`), in the caller's transaction. The keys changed.
   */
  endOrHandOverCreatedBy(em: EntityManager, organizationId: string, userId: string, handOverTo: string | null): Promise<{ id: string; name: string }[]> {
    return queryReturning<{ id: string; name: string }>(
      em,
      handOverTo
        ? `UPDATE api_keys SET created_by = $3 WHERE organization_id = $1 AND created_by = $2 AND revoked_at IS NULL RETURNING id, name`
        : `UPDATE api_keys SET revoked_at = now() WHERE organization_id = $1 AND created_by = $2 AND revoked_at IS NULL RETURNING id, name`,
      handOverTo ? [organizationId, userId, handOverTo] : [organizationId, userId],
    );
  }

  /** The live keys a person created in an organisation (what `endOrHandOverCreatedBy` would change). */
  liveCreatedBy(em: EntityManager, organizationId: string, userId: string): Promise<{ id: string; name: string }[]> {
    return em.getRepository(ApiKey).find({
      select: { id: true, name: true },
      where: { organizationId, createdBy: userId, revokedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** The names of an organisation's keys (revoked ones too), by id. */
  async namesOf(organizationId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids)].filter(isUuid);
    if (!wanted.length) return new Map();
    const rows = await this.dataSource.getRepository(ApiKey).find({ select: { id: true, name: true }, where: { organizationId, id: In(wanted) } });
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async create(
    em: EntityManager,
    key: {
      id?: string;
      organizationId: string;
      name: string;
      keyHash: string;
      permissions: ApiKeyPermission[];
      createdBy: string | null;
      expiresAt: Date | null;
      secretLast4?: string | null;
    },
  ): Promise<ApiKey> {
    const repository = em.getRepository(ApiKey);
    const { id } = (await repository.insert(key)).identifiers[0] as { id: string };
    return repository.findOneByOrFail({ id });
  }

  /** Up to `limit` keys of the organisation, newest first, after a keyset position; each with its exact position. */
  async page(organizationId: string, limit: number, after?: KeysetPosition): Promise<(ApiKey & { position: KeysetPosition })[]> {
    const query = this.dataSource
      .getRepository(ApiKey)
      .createQueryBuilder('k')
      .addSelect(KEYSET_SQL.createdUs('k'), 'k_created_us')
      .where('k.organizationId = :organizationId', { organizationId });
    if (after) query.andWhere(KEYSET_SQL.after('k', ':afterUs', ':afterId'), { afterUs: after.us, afterId: after.id });
    const { entities, raw } = await query.orderBy('k.createdAt', 'DESC').addOrderBy('k.id', 'DESC').limit(limit).getRawAndEntities<{ k_created_us: string }>();
    return entities.map((key, i) => Object.assign(key, { position: { us: raw[i]!.k_created_us, id: key.id } }));
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

  /** The key that `id` replaced and that is still rotating out, if any. */
  findRotatingOutPredecessor(em: EntityManager, id: string): Promise<ApiKey | null> {
    return em
      .getRepository(ApiKey)
      .createQueryBuilder('k')
      .where('k.replacedById = :id', { id })
      .andWhere('k.revokedAt IS NULL AND k.expiresAt > now()')
      .getOne();
  }

  /**
   * Conditional: the key starts rotating out to `replacementId`, working until now +
   * `overlapSeconds` (or its own earlier expiry). Null when it is unknown, revoked, expired,
   * already rotating out, or itself replaces a key still rotating out (at most one more key
   * per rotation). A concurrent second rotation waits for this row and then finds it replaced.
   */
  async startRotation(
    em: EntityManager,
    organizationId: string,
    id: string,
    replacementId: string,
    overlapSeconds: number,
  ): Promise<{ expiresAt: Date } | null> {
    const [row] = await queryReturning<{ expires_at: Date }>(
      em,
      `UPDATE api_keys
          SET replaced_by_id = $3,
              expires_at = LEAST(coalesce(expires_at, 'infinity'::timestamptz), now() + make_interval(secs => $4))
        WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL AND replaced_by_id IS NULL
          AND (expires_at IS NULL OR expires_at > now())
          AND NOT EXISTS (SELECT 1 FROM api_keys p
                           WHERE p.replaced_by_id = $1 AND p.revoked_at IS NULL AND p.expires_at > now())
        RETURNING expires_at`,
      [id, organizationId, replacementId, Math.trunc(overlapSeconds)],
    );
    return row ? { expiresAt: row.expires_at } : null;
  }

  /** The key `id` replaced, when it is still rotating out: revoking a key ends its overlap too. */
  revokeRotatingOutPredecessor(em: EntityManager, organizationId: string, id: string): Promise<number> {
    return queryAffected(
      em,
      `UPDATE api_keys SET revoked_at = now()
        WHERE replaced_by_id = $1 AND organization_id = $2 AND revoked_at IS NULL AND expires_at > now()`,
      [id, organizationId],
    );
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
