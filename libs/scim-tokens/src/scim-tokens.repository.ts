import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { ScimToken } from './entities/scim-token.entity';

/** A token's row as a revocation or hand-over returns it. */
export interface EndedScimToken {
  id: string;
  name: string;
}

/** The `scim_tokens` table, the only file that queries it (`ScimTokensService` decides and audits). */
@Injectable()
export class ScimTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(ScimToken);
  }

  insert(em: EntityManager, values: Pick<ScimToken, 'organizationId' | 'name' | 'tokenHash' | 'secretLast4' | 'createdBy' | 'expiresAt'>): Promise<ScimToken> {
    return this.repo(em).save(this.repo(em).create(values));
  }

  /** The organisation's tokens not revoked (an expired one too), newest first. */
  listLive(organizationId: string): Promise<ScimToken[]> {
    return this.repo().find({ where: { organizationId, revokedAt: IsNull() }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** Revokes a live token of the organisation; null when there is none by that id. */
  async revoke(em: EntityManager, organizationId: string, id: string): Promise<(EndedScimToken & { revokedAt: Date }) | null> {
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()' })
      .where('id = :id AND organization_id = :organizationId AND revoked_at IS NULL', { id, organizationId })
      .returning('id, name, revoked_at')
      .updateEntity(false)
      .execute();
    const [row] = result.raw as { id: string; name: string; revoked_at: Date }[];
    return row ? { id: row.id, name: row.name, revokedAt: new Date(row.revoked_at) } : null;
  }

  /** Revokes the live tokens `userId` made in the organisation, or passes them to `handOverTo`: those changed. */
  async endOrHandOverCreatedBy(em: EntityManager, organizationId: string, userId: string, handOverTo: string | null): Promise<EndedScimToken[]> {
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set(handOverTo ? { createdBy: handOverTo } : { revokedAt: () => 'now()' })
      .where('organization_id = :organizationId AND created_by = :userId AND revoked_at IS NULL', { organizationId, userId })
      .returning('id, name')
      .updateEntity(false)
      .execute();
    return (result.raw as EndedScimToken[]).map((r) => ({ id: r.id, name: r.name }));
  }

  /** Who made a token (null: unknown, or made by no person). */
  async makerOf(scimTokenId: string, em?: EntityManager): Promise<string | null> {
    return (await this.repo(em).findOne({ where: { id: scimTokenId }, select: { id: true, createdBy: true } }))?.createdBy ?? null;
  }

  /** The live token with this digest: not revoked, not past its expiry (the database's clock). */
  findLiveByHash(tokenHash: string): Promise<Pick<ScimToken, 'id' | 'organizationId' | 'lastUsedAt'> | null> {
    return this.repo()
      .createQueryBuilder('t')
      .select(['t.id', 't.organizationId', 't.lastUsedAt'])
      .where('t.token_hash = :hash AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())', { hash: tokenHash })
      .getOne();
  }

  async touchLastUsed(id: string): Promise<void> {
    await this.repo().update({ id }, { lastUsedAt: () => 'now()' });
  }
}
