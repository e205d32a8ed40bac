import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull, Not } from 'typeorm';
import { ProvisionedUser } from './entities';

/** The attributes a SCIM list can filter on with `eq`. */
export type ProvisionedUserFilter = { attribute: 'userName' | 'externalId' | 'id'; value: string } | null;

export type NewProvisionedUser = Pick<
  ProvisionedUser,
  'organizationId' | 'userId' | 'userName' | 'externalId' | 'givenName' | 'familyName' | 'displayName' | 'active' | 'role' | 'invitationId' | 'accountCreated'
>;

export type ProvisionedUserChanges = Partial<
  Pick<ProvisionedUser, 'userId' | 'userName' | 'externalId' | 'givenName' | 'familyName' | 'displayName' | 'active' | 'role' | 'invitationId'>
>;

/**
 * The table `provisioned_users`: the people an organisation's SCIM client provisioned (its
 * `Users` resources). Rows the client deleted stay, inactive, so that a later SSO sign-in does
 * not bring the membership back; they are no longer resources. Writes take the caller's
 * `EntityManager`.
 */
@Injectable()
export class ProvisionedUserDirectory {
  constructor(private readonly dataSource: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(ProvisionedUser);
  }

  /** One resource of the organisation (not deleted), optionally locked for update in `em`. */
  async find(organizationId: string, id: string, em?: EntityManager, options: { lock?: boolean } = {}): Promise<ProvisionedUser | null> {
    if (!UUID_RE.test(id)) return null;
    const query = this.repo(em)
      .createQueryBuilder('p')
      .where('p.id = :id AND p.organization_id = :organizationId AND p.deleted_at IS NULL', { id, organizationId });
    if (options.lock) query.setLock('pessimistic_write');
    return query.getOne();
  }

  /** The organisation's row for this email, deleted or not (one per email). */
  byUserName(organizationId: string, userName: string, em?: EntityManager): Promise<ProvisionedUser | null> {
    return this.repo(em).findOne({ where: { organizationId, userName: userName.toLowerCase() } });
  }

  /** The row of the organisation that names this person, deleted or not. */
  byUser(organizationId: string, userId: string, em?: EntityManager): Promise<ProvisionedUser | null> {
    return this.repo(em).findOne({ where: { organizationId, userId } });
  }

  /** A page of the organisation's resources (oldest first, then id) and how many match in all. */
  async page(organizationId: string, filter: ProvisionedUserFilter, offset: number, limit: number): Promise<{ total: number; items: ProvisionedUser[] }> {
    const where: Record<string, unknown> = { organizationId, deletedAt: IsNull() };
    if (filter?.attribute === 'userName') where.userName = filter.value.toLowerCase();
    if (filter?.attribute === 'externalId') where.externalId = filter.value;
    if (filter?.attribute === 'id') {
      if (!UUID_RE.test(filter.value)) return { total: 0, items: [] };
      where.id = filter.value;
    }
    const [items, total] = await this.repo().findAndCount({ where, order: { createdAt: 'ASC', id: 'ASC' }, skip: offset, take: limit });
    return { total, items: limit === 0 ? [] : items };
  }

  async insert(values: NewProvisionedUser, em: EntityManager): Promise<ProvisionedUser> {
    return this.repo(em).save(this.repo(em).create(values));
  }

  async update(id: string, changes: ProvisionedUserChanges, em: EntityManager): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await this.repo(em).update({ id }, changes);
  }

  /** The SCIM client deleted the person: the row stays, inactive, out of the resources. */
  async markDeleted(id: string, em: EntityManager): Promise<void> {
    await this.repo(em).update({ id }, { active: false, deletedAt: () => 'now()' });
  }

  /** Forgets a deleted row, so that the SCIM client can provision the same email anew. */
  async forgetDeleted(id: string, em: EntityManager): Promise<void> {
    await this.repo(em).delete({ id, deletedAt: Not(IsNull()) });
  }
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
