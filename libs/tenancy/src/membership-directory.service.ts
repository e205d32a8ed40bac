import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import type { KeysetPosition } from '@app/common';
import { isUuid, queryAffected } from '@app/database';
import { Membership } from './entities/membership.entity';
import { MembershipEnding } from './entities/membership-ending.entity';
import { containsPattern } from './project-directory.service';
import { User } from './entities/user.entity';
import type { MembershipRole } from './roles';

/** A member of an organisation, with the person's email and name. */
export interface MemberRecord {
  userId: string;
  email: string;
  name: string;
  role: MembershipRole;
  joinedAt: Date;
}

/**
 * The `memberships` table: who belongs to which organisation, with which role. The methods that
 * change it take the caller's EntityManager, so the change commits with the rest of the caller's
 * transaction (see `OrganizationDirectory.lock` for serialising the changes of one organisation).
 */
/**
 * Whether the membership `m` began after the session `:sessionId` was issued: its last ending
 * (`membership_endings`) is later than the session's `sessions` row (or the session has no row).
 */
const PREDATES_SQL = `EXISTS (SELECT 1 FROM membership_endings e WHERE e.organization_id = m.organization_id AND e.user_id = m.user_id
  AND e.ended_at > COALESCE((SELECT s.created_at FROM sessions s WHERE s.id = :sessionId AND s.user_id = m.user_id), 'infinity'::timestamptz))`;

@Injectable()
export class MembershipDirectory {
  constructor(private readonly dataSource: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(Membership);
  }

  /** The person's role in the organisation, or null when they are not a member. */
  async roleOf(userId: string, organizationId: string, em?: EntityManager): Promise<MembershipRole | null> {
    const membership = await this.repo(em).findOne({ where: { userId, organizationId }, select: { role: true } });
    return membership?.role ?? null;
  }

  /**
   * The members in the order they joined (to the millisecond shown), then by user id, after a position (the millisecond a member joined, in whole
   * microseconds, then the user id), with each member's position; `limit` rows at most.
   */
  async page(
    organizationId: string,
    limit: number,
    after?: KeysetPosition,
    nameOrEmailContains?: string,
  ): Promise<(MemberRecord & { position: KeysetPosition })[]> {
    const joined = "date_trunc('milliseconds', m.createdAt)";
    const query = this.memberQuery()
      .addSelect(`(extract(epoch FROM ${joined}) * 1000000)::bigint::text`, 'us')
      .where('m.organizationId = :organizationId', { organizationId });
    if (nameOrEmailContains) {
      query.andWhere('(u.name ILIKE :pattern OR u.email ILIKE :pattern)', { pattern: containsPattern(nameOrEmailContains) });
    }
    if (after) {
      query.andWhere(`(${joined}, m.userId) > (timestamptz 'epoch' + :us::bigint * interval '1 microsecond', :id::uuid)`, { us: after.us, id: after.id });
    }
    const rows = await query.orderBy(joined).addOrderBy('m.userId').limit(limit).getRawMany<RawMember & { us: string }>();
    return rows.map((r) => ({ ...toMember(r), position: { us: r.us, id: r.user_id } }));
  }

  /** The member, or null (also for a user id that is not a UUID). */
  async find(organizationId: string, userId: string, em?: EntityManager): Promise<MemberRecord | null> {
    if (!isUuid(userId)) return null;
    const row = await this.memberQuery(em)
      .where('m.organizationId = :organizationId AND m.userId = :userId', { organizationId, userId })
      .getRawOne<RawMember>();
    return row ? toMember(row) : null;
  }

  /** Adds a membership; false (and nothing written) when the person already is a member. */
  async add(organizationId: string, userId: string, role: MembershipRole, em?: EntityManager): Promise<boolean> {
    const result = await this.repo(em)
      .createQueryBuilder()
      .insert()
      .values({ organizationId, userId, role })
      .orIgnore()
      .returning('user_id')
      .updateEntity(false)
      .execute();
    const added = (result.raw as unknown[]).length > 0;
    // Joining again (an invitation, SCIM) lifts an admin's removal.
    if (added) {
      await (em ?? this.dataSource.manager).query(
        'UPDATE membership_endings SET removed = false WHERE organization_id = $1 AND user_id = $2 AND removed',
        [organizationId, userId],
      );
    }
    return added;
  }

  /** Whether an admin removed the person from the organisation and nothing (an invitation, SCIM) brought them back since. */
  async removedByAdmin(organizationId: string, userId: string, em?: EntityManager): Promise<boolean> {
    return (em ?? this.dataSource.manager).getRepository(MembershipEnding).existsBy({ organizationId, userId, removed: true });
  }

  /** A demotion (to `member`) replaces the membership: it begins anew, so older sessions no longer open the organisation. */
  async changeRole(organizationId: string, userId: string, role: MembershipRole, em?: EntityManager): Promise<void> {
    await this.repo(em).update({ organizationId, userId }, { role });
    if (role !== 'admin') await this.recordEnding(organizationId, userId, {}, em);
  }

  /**
   * Forgets the membership endings that can no longer matter: not an admin's removal (the flag
   * decides whether a single sign-on brings the person back, for ever), and no live session of the
   * person issued before the ending (a later session is opened by the membership anyway). A SCIM
   * deprovisioning's ending goes like any other: the deprovisioning itself is `provisioned_users`'
   * (`libs/identity`). Run by the sessions' cleanup job; the number removed.
   */
  async forgetSettledEndings(): Promise<number> {
    return queryAffected(
      this.dataSource,
      `DELETE FROM membership_endings e
        WHERE NOT e.removed
          AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = e.user_id AND s.created_at < e.ended_at AND s.expires_at > now())`,
      [],
    );
  }

  /** Records that the person's membership ended or was replaced now (an upsert): sessions issued before never open it again. */
  private async recordEnding(organizationId: string, userId: string, how: { byAdmin?: boolean }, em?: EntityManager): Promise<void> {
    await (em ?? this.dataSource.manager).query(
      `INSERT INTO membership_endings (organization_id, user_id, ended_at, removed) VALUES ($1, $2, now(), $3)
       ON CONFLICT (organization_id, user_id) DO UPDATE SET ended_at = now(), removed = EXCLUDED.removed`,
      [organizationId, userId, how.byAdmin === true],
    );
  }

  /**
   * The person's role in the organisation for one of their sessions (its `sessions` row id): null
   * without a membership; `predates` when the current membership began (its last ending) after the
   * session was issued, compared in SQL in one query.
   */
  async roleForSession(userId: string, organizationId: string, sessionId: string, em?: EntityManager): Promise<{ role: MembershipRole; predates: boolean } | null> {
    const row = await this.repo(em)
      .createQueryBuilder('m')
      .select('m.role', 'role')
      .addSelect(`${PREDATES_SQL}`, 'predates')
      .where('m.user_id = :userId AND m.organization_id = :organizationId', { userId, organizationId, sessionId })
      .getRawOne<{ role: MembershipRole; predates: boolean }>();
    return row ? { role: row.role, predates: row.predates === true } : null;
  }

  /** The organisations whose current membership of the person began after this session of theirs was issued. */
  async startedAfterSession(userId: string, sessionId: string): Promise<Set<string>> {
    const rows = await this.repo()
      .createQueryBuilder('m')
      .select('m.organization_id', 'organization_id')
      .where('m.user_id = :userId', { userId, sessionId })
      .andWhere(PREDATES_SQL)
      .getRawMany<{ organization_id: string }>();
    return new Set(rows.map((r) => r.organization_id));
  }

  /**
   * Ends the membership; `byAdmin`: an admin's removal, which a later single sign-on does not undo.
   * A SCIM deprovisioning is not one (SCIM's `provisioned_users` row refuses the person instead).
   */
  async remove(organizationId: string, userId: string, em?: EntityManager, how: { byAdmin?: boolean } = {}): Promise<void> {
    await this.repo(em).delete({ organizationId, userId });
    await this.recordEnding(organizationId, userId, how, em);
  }

  /** The members whose email's domain (after the @, any case) is none of `domains`: admins first, then by email. */
  async outsideDomains(organizationId: string, domains: readonly string[], em?: EntityManager): Promise<MemberRecord[]> {
    const rows = await this.memberQuery(em)
      .where('m.organizationId = :organizationId', { organizationId })
      .andWhere("NOT (lower(split_part(u.email, '@', 2)) = ANY(:domains::text[]))", { domains: [...domains] })
      .orderBy("m.role = 'admin'", 'DESC')
      .addOrderBy('u.email')
      .getRawMany<RawMember>();
    return rows.map(toMember);
  }

  async countAdmins(organizationId: string, em?: EntityManager): Promise<number> {
    return this.repo(em).countBy({ organizationId, role: 'admin' });
  }

  /** The ids of the organisation's members, only those with `role` and among `among` (UUIDs) when given. */
  async memberIds(organizationId: string, filter: { role?: MembershipRole; among?: string[] } = {}, em?: EntityManager): Promise<string[]> {
    const among = filter.among?.filter(isUuid);
    if (among && among.length === 0) return [];
    const rows = await this.repo(em).find({
      where: { organizationId, ...(filter.role ? { role: filter.role } : {}), ...(among ? { userId: In(among) } : {}) },
      select: { userId: true },
    });
    return rows.map((r) => r.userId);
  }

  private memberQuery(em?: EntityManager) {
    return this.repo(em)
      .createQueryBuilder('m')
      .innerJoin(User, 'u', 'u.id = m.userId')
      .select(['m.userId AS user_id', 'u.email AS email', 'u.name AS name', 'm.role AS role', 'm.createdAt AS created_at']);
  }
}

interface RawMember {
  user_id: string;
  email: string;
  name: string;
  role: MembershipRole;
  created_at: Date;
}

function toMember(row: RawMember): MemberRecord {
  return { userId: row.user_id, email: row.email, name: row.name, role: row.role, joinedAt: new Date(row.created_at) };
}
