import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Membership } from './entities/membership.entity';
import { Organization } from './entities/organization.entity';
import type { MembershipRole } from './roles';

export interface OrganizationRecord {
  id: string;
  name: string;
  createdAt: Date;
}

/** An organisation seen by one of its members. */
export interface MemberOrganization extends OrganizationRecord {
  role: MembershipRole;
  joinedAt: Date;
}

/** The `organizations` table, and organisations as their members see them. */
@Injectable()
export class OrganizationDirectory {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A new organisation whose only admin is `adminUserId` (name trimmed). Both rows are written
   * through `em`, so call it inside the transaction that records the audit event.
   */
  async create(name: string, adminUserId: string, em: EntityManager): Promise<OrganizationRecord> {
    const organization = await em.getRepository(Organization).save(em.getRepository(Organization).create({ name: name.trim() }));
    await em.getRepository(Membership).insert({ organizationId: organization.id, userId: adminUserId, role: 'admin' });
    return { id: organization.id, name: organization.name, createdAt: organization.createdAt };
  }

  /**
   * Locks the organisation's row until `em`'s transaction ends, so that changes to its
   * memberships run one after another.
   */
  async lock(organizationId: string, em: EntityManager): Promise<void> {
    await em
      .getRepository(Organization)
      .createQueryBuilder('o')
      .select('o.id')
      .where('o.id = :organizationId', { organizationId })
      .setLock('pessimistic_write')
      .getOne();
  }

  /**
   * The organisations a person belongs to, with their role: oldest organisation first, or in
   * the order they joined.
   */
  async listForMember(userId: string, order: 'created' | 'joined' = 'created'): Promise<MemberOrganization[]> {
    const query = this.memberQuery(userId);
    if (order === 'joined') query.orderBy('m.createdAt').addOrderBy('o.id');
    else query.orderBy('o.createdAt').addOrderBy('o.id');
    return (await query.getRawMany<RawMemberOrganization>()).map(toMemberOrganization);
  }

  /** One organisation if the person is a member of it, else null. */
  async findForMember(userId: string, organizationId: string): Promise<MemberOrganization | null> {
    const row = await this.memberQuery(userId).andWhere('o.id = :organizationId', { organizationId }).getRawOne<RawMemberOrganization>();
    return row ? toMemberOrganization(row) : null;
  }

  private memberQuery(userId: string) {
    return this.dataSource.manager
      .getRepository(Membership)
      .createQueryBuilder('m')
      .innerJoin(Organization, 'o', 'o.id = m.organizationId')
      .select(['o.id AS id', 'o.name AS name', 'o.createdAt AS created_at', 'm.role AS role', 'm.createdAt AS joined_at'])
      .where('m.userId = :userId', { userId });
  }
}

interface RawMemberOrganization {
  id: string;
  name: string;
  created_at: Date;
  role: MembershipRole;
  joined_at: Date;
}

function toMemberOrganization(row: RawMemberOrganization): MemberOrganization {
  return { id: row.id, name: row.name, createdAt: new Date(row.created_at), role: row.role, joinedAt: new Date(row.joined_at) };
}
