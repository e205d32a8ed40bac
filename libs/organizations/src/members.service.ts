import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { isUuid } from '@app/database';
import { AccessRevocationService } from './access-revocation.service';
import type { MemberDto, RemovedMemberDto } from './dto/member.dto';
import type { MembershipRole } from './entities/membership.entity';
import { AlreadyMemberError, LastAdminError, MemberNotFoundError, NoSuchUserError } from './organizations.errors';
import type { Actor } from './projects.service';

interface MemberRow {
  user_id: string;
  email: string;
  name: string;
  role: MembershipRole;
  created_at: Date;
}

const MEMBER_COLUMNS = 'm.user_id, u.email, u.name, m.role, m.created_at';

/**
 * Who belongs to an organisation, with which role. Every change locks the organisation row
 * first, so concurrent changes run one after another and the "at least one admin" rule holds
 * even when two admins demote each other at the same moment.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly revocation: AccessRevocationService,
  ) {}

  async list(organizationId: string): Promise<MemberDto[]> {
    const rows: MemberRow[] = await this.dataSource.query(
      `SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = $1
        ORDER BY date_trunc('milliseconds', m.created_at), m.user_id`,
      [organizationId],
    );
    return rows.map(toDto);
  }

  /** Adds an existing account, found by email (case-insensitive). */
  async add(organizationId: string, email: string, role: MembershipRole, actor: Actor, origin?: RequestOrigin): Promise<MemberDto> {
    return this.dataSource.transaction(async (em) => {
      await lockOrganization(em, organizationId);
      const users: { id: string }[] = await em.query('SELECT id FROM users WHERE lower(email) = $1', [email.trim().toLowerCase()]);
      const user = users[0];
      if (!user) throw new NoSuchUserError();
      const inserted: unknown[] = await em.query(
        `INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (organization_id, user_id) DO NOTHING RETURNING user_id`,
        [organizationId, user.id, role],
      );
      if (!inserted.length) throw new AlreadyMemberError();
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'member.added',
        targetType: 'user',
        targetId: user.id,
        metadata: { role },
        origin,
      });
      return this.memberOrFail(em, organizationId, user.id);
    });
  }

  async changeRole(organizationId: string, userId: string, role: MembershipRole, actor: Actor, origin?: RequestOrigin): Promise<MemberDto> {
    if (!isUuid(userId)) throw new MemberNotFoundError();
    return this.dataSource.transaction(async (em) => {
      await lockOrganization(em, organizationId);
      const current = await this.memberOrFail(em, organizationId, userId);
      if (current.role === role) return current;
      if (current.role === 'admin') await assertAnotherAdmin(em, organizationId);
      await em.query('UPDATE memberships SET role = $3 WHERE organization_id = $1 AND user_id = $2', [organizationId, userId, role]);
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'member.role_changed',
        targetType: 'user',
        targetId: userId,
        metadata: { from: current.role, to: role },
        origin,
      });
      return { ...current, role };
    });
  }

  /**
   * Removes a member and, in the same transaction, revokes what they reached through the
   * organisation (`AccessRevocationService.revokeMemberAccess`).
   */
  async remove(organizationId: string, userId: string, actor: Actor, origin?: RequestOrigin): Promise<RemovedMemberDto> {
    if (!isUuid(userId)) throw new MemberNotFoundError();
    return this.dataSource.transaction(async (em) => {
      await lockOrganization(em, organizationId);
      const current = await this.memberOrFail(em, organizationId, userId);
      if (current.role === 'admin') await assertAnotherAdmin(em, organizationId);
      await em.query('DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2', [organizationId, userId]);
      const { revokedTokens } = await this.revocation.revokeMemberAccess(em, organizationId, userId, { ...actor, origin });
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'member.removed',
        targetType: 'user',
        targetId: userId,
        metadata: { role: current.role, revokedTokens },
        origin,
      });
      return { userId, organizationId, revokedTokens };
    });
  }

  private async memberOrFail(em: EntityManager, organizationId: string, userId: string): Promise<MemberDto> {
    const rows: MemberRow[] = await em.query(
      `SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = $1 AND m.user_id = $2`,
      [organizationId, userId],
    );
    if (!rows[0]) throw new MemberNotFoundError();
    return toDto(rows[0]);
  }
}

async function lockOrganization(em: EntityManager, organizationId: string): Promise<void> {
  await em.query('SELECT id FROM organizations WHERE id = $1 FOR UPDATE', [organizationId]);
}

/** Refuses to take the admin role away from the last admin (called with the organisation locked). */
async function assertAnotherAdmin(em: EntityManager, organizationId: string): Promise<void> {
  const [row] = (await em.query(`SELECT count(*)::int AS admins FROM memberships WHERE organization_id = $1 AND role = 'admin'`, [
    organizationId,
  ])) as { admins: number }[];
  if ((row?.admins ?? 0) <= 1) throw new LastAdminError();
}

function toDto(row: MemberRow): MemberDto {
  return { userId: row.user_id, email: row.email, name: row.name, role: row.role, joinedAt: new Date(row.created_at).toISOString() };
}
