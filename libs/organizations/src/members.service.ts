import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { CredentialRevoker } from '@app/credentials';
import { MemberRecord, MembershipDirectory, MembershipRole, OrganizationDirectory, UserDirectory } from '@app/tenancy';
import type { MemberDto, RemovedMemberDto } from './dto/member.dto';
import { AlreadyMemberError, LastAdminError, MemberNotFoundError, NoSuchUserError } from './organizations.errors';
import type { Actor } from './projects.service';

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
    private readonly revocation: CredentialRevoker,
    private readonly users: UserDirectory,
    private readonly organizations: OrganizationDirectory,
    private readonly memberships: MembershipDirectory,
  ) {}

  async list(organizationId: string): Promise<MemberDto[]> {
    return (await this.memberships.list(organizationId)).map(toDto);
  }

  /** Adds an existing account, found by email (case-insensitive). */
  async add(organizationId: string, email: string, role: MembershipRole, actor: Actor, origin?: RequestOrigin): Promise<MemberDto> {
    return this.dataSource.transaction(async (em) => {
      await this.organizations.lock(organizationId, em);
      const userId = await this.users.idByEmail(email, em);
      if (!userId) throw new NoSuchUserError();
      if (!(await this.memberships.add(organizationId, userId, role, em))) throw new AlreadyMemberError();
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'member.added',
        targetType: 'user',
        targetId: userId,
        metadata: { role },
        origin,
      });
      return this.memberOrFail(em, organizationId, userId);
    });
  }

  async changeRole(organizationId: string, userId: string, role: MembershipRole, actor: Actor, origin?: RequestOrigin): Promise<MemberDto> {
    return this.dataSource.transaction(async (em) => {
      await this.organizations.lock(organizationId, em);
      const current = await this.memberOrFail(em, organizationId, userId);
      if (current.role === role) return current;
      if (current.role === 'admin') await this.assertAnotherAdmin(em, organizationId);
      await this.memberships.changeRole(organizationId, userId, role, em);
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
   * organisation (`CredentialRevoker.revokeMemberAccess`).
   */
  async remove(organizationId: string, userId: string, actor: Actor, origin?: RequestOrigin): Promise<RemovedMemberDto> {
    return this.dataSource.transaction(async (em) => {
      await this.organizations.lock(organizationId, em);
      const current = await this.memberOrFail(em, organizationId, userId);
      if (current.role === 'admin') await this.assertAnotherAdmin(em, organizationId);
      await this.memberships.remove(organizationId, userId, em);
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
    const member = await this.memberships.find(organizationId, userId, em);
    if (!member) throw new MemberNotFoundError();
    return toDto(member);
  }

  /** Refuses to take the admin role away from the last admin (called with the organisation locked). */
  private async assertAnotherAdmin(em: EntityManager, organizationId: string): Promise<void> {
    if ((await this.memberships.countAdmins(organizationId, em)) <= 1) throw new LastAdminError();
  }
}

function toDto(member: MemberRecord): MemberDto {
  return { userId: member.userId, email: member.email, name: member.name, role: member.role, joinedAt: member.joinedAt.toISOString() };
}
