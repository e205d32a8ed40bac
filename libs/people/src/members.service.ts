import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, PAGE_SIZE_DEFAULT } from '@app/common';
import { CredentialRevoker, MemberRemovalPreview, OffboardingReport } from '@app/credential-store';
import { ScimTokenOffboarding, type ScimTokensOffboarded } from './scim-token-offboarding';
import { userOf } from './session-principal';
import { InvitationDirectory, MemberRecord, MembershipDirectory, MembershipRole, OrganizationDirectory, UserDirectory } from '@app/tenancy';
import { handOverTarget, lastAdminRefusal, type MembershipChange } from './membership-rules';
import { MemberNotFoundError } from './people.errors';
import type { ChangedMember, Member, MemberList, Offboarding, RemovedMember } from './people.types';

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
    private readonly invitations: InvitationDirectory,
    private readonly scimTokens: ScimTokenOffboarding,
  ) {}

  /** The `scim_` tokens the person made end (or pass to `handOverTo`) with their admin role (SPEC §10). */
  private async offboardScimTokens(
    em: EntityManager,
    organizationId: string,
    userId: string,
    options: { handOverTo: string | null; reason: 'member_removed' | 'member_demoted' },
    actor: AuditActor,
  ): Promise<ScimTokensOffboarded> {
    return this.scimTokens.endOrHandOverCreatedBy(em, organizationId, userId, options, actor);
  }

  /**
   * A page of the members, in the order they joined, then by user id (keyset: `nextCursor`); with
   * `query`, only those whose name or email contains it (the pages' person pickers).
   */
  async page(organizationId: string, options: { limit?: number; cursor?: string; query?: string } = {}): Promise<MemberList> {
    const limit = options.limit ?? PAGE_SIZE_DEFAULT;
    const after = options.cursor === undefined ? undefined : decodeKeysetCursor(options.cursor);
    const rows = await this.memberships.page(organizationId, limit + 1, after, options.query?.trim() || undefined);
    const page = keysetPage(rows, limit, (m) => encodeKeysetCursor(m.position));
    return { items: page.items.map(toMember), nextCursor: page.nextCursor };
  }

  /**
   * What removing the member would end and what it would leave, before anything changes (the
   * confirmation a person sees first). 404 when the person is not a member.
   */
  async removalPreview(organizationId: string, userId: string): Promise<{ member: Member; lastAdmin: boolean } & MemberRemovalPreview> {
    const member = await this.get(organizationId, userId);
    const lastAdmin = member.role === 'admin' && (await this.memberships.countAdmins(organizationId)) <= 1;
    return { member, lastAdmin, ...(await this.revocation.previewMemberRemoval(this.dataSource.manager, organizationId, userId)) };
  }

  /** One member of the organisation (404 when the person is not one). */
  async get(organizationId: string, userId: string): Promise<Member> {
    const member = await this.memberships.find(organizationId, userId);
    if (!member) throw new MemberNotFoundError();
    return toMember(member);
  }

  /**
   * Changes a member's role. Demoting an admin ends, in the same transaction, the `rk_` keys
   * they created (or hands them to the acting admin with `handOver`), and the answer lists what
   * they could hold (`offboarding`). `source` names what made the change when no person asked for
   * it (`groups`: the identity provider's groups claim at a single sign-on), in the audit event.
   */
  async changeRole(
    organizationId: string,
    userId: string,
    input: { role: MembershipRole; handOver?: boolean; source?: 'groups' },
    actor: AuditActor,
  ): Promise<ChangedMember> {
    const handOverTo = handOverTarget(userId, userOf(actor), input.handOver);
    return this.dataSource.transaction((em) => this.changeRoleIn(em, organizationId, userId, { role: input.role, handOverTo, source: input.source }, actor));
  }

  /**
   * `changeRole` inside the caller's transaction (`em`), for a change that commits with other
   * writes (SCIM): the same locks, last-admin rule, demotion offboarding and audit event.
   */
  async changeRoleIn(
    em: EntityManager,
    organizationId: string,
    userId: string,
    input: { role: MembershipRole; handOverTo: string | null; source?: 'groups' },
    actor: AuditActor,
  ): Promise<ChangedMember> {
    const { role, handOverTo } = input;
    await this.organizations.lock(organizationId, em);
    const current = await this.memberOrFail(em, organizationId, userId);
    if (current.role === role) return current;
    await this.assertKeepsAnAdmin(em, organizationId, current.role, { kind: 'role', to: role });
    await this.memberships.changeRole(organizationId, userId, role, em);
    const report =
      current.role === 'admin'
        ? await this.revocation.offboard(em, organizationId, userId, { handOverTo, reason: 'member_demoted' }, actor)
        : null;
    const scimTokens = report ? await this.offboardScimTokens(em, organizationId, userId, { handOverTo, reason: 'member_demoted' }, actor) : null;
    if (current.role === 'admin') await this.endInvitationsBy(em, organizationId, userId, 'member_demoted', actor);
    await this.audit.record(em, {
      organizationId,
      ...actor,
      action: 'member.role_changed',
      targetType: 'user',
      targetId: userId,
      metadata: { from: current.role, to: role, ...(input.source ? { source: input.source } : {}), ...(report ? auditSummary(report, scimTokens!) : {}) },
    });
    return { ...current, role, ...(report ? { offboarding: offboardingOf(organizationId, report, scimTokens!) } : {}) };
  }

  /**
   * Removes a member and, in the same transaction, revokes what they reached through the
   * organisation (`CredentialRevoker.revokeMemberAccess`).
   */
  async remove(organizationId: string, userId: string, input: { handOver?: boolean }, actor: AuditActor): Promise<RemovedMember> {
    const handOverTo = handOverTarget(userId, userOf(actor), input.handOver);
    return this.dataSource.transaction((em) => this.removeIn(em, organizationId, userId, { handOverTo, byAdmin: true }, actor));
  }

  /**
   * `remove` inside the caller's transaction (`em`), for an offboarding that commits with other
   * writes (SCIM deprovisioning): the same lock, last-admin rule, revocations and audit event.
   */
  async removeIn(
    em: EntityManager,
    organizationId: string,
    userId: string,
    input: { handOverTo: string | null; byAdmin?: boolean },
    actor: AuditActor,
  ): Promise<RemovedMember> {
    const { handOverTo } = input;
    await this.organizations.lock(organizationId, em);
    const current = await this.memberOrFail(em, organizationId, userId);
    await this.assertKeepsAnAdmin(em, organizationId, current.role, { kind: 'remove' });
    // An admin's removal sticks: a later single sign-on does not add the person back (SPEC §10).
    await this.memberships.remove(organizationId, userId, em, { byAdmin: input.byAdmin });
    const { revokedTokens } = await this.revocation.revokeMemberAccess(em, organizationId, userId, actor);
    const report = await this.revocation.offboard(em, organizationId, userId, { handOverTo, reason: 'member_removed' }, actor);
    const scimTokens = await this.offboardScimTokens(em, organizationId, userId, { handOverTo, reason: 'member_removed' }, actor);
    await this.endInvitationsBy(em, organizationId, userId, 'member_removed', actor);
    await this.audit.record(em, {
      organizationId,
      ...actor,
      action: 'member.removed',
      targetType: 'user',
      targetId: userId,
      metadata: { role: current.role, revokedTokens, ...auditSummary(report, scimTokens) },
    });
    return { userId, organizationId, revokedTokens, offboarding: offboardingOf(organizationId, report, scimTokens) };
  }

  /**
   * The open invitations the person created in the organisation end with their right to
   * invite (removal, demotion), each audited as withdrawn, in the caller's transaction.
   */
  private async endInvitationsBy(
    em: EntityManager,
    organizationId: string,
    userId: string,
    reason: 'member_removed' | 'member_demoted',
    actor: AuditActor,
  ): Promise<void> {
    for (const invitation of await this.invitations.withdrawCreatedBy(organizationId, userId, em)) {
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'invitation.withdrawn',
        targetType: 'invitation',
        targetId: invitation.id,
        metadata: { email: invitation.email, role: invitation.role, reason, invitedBy: userId },
      });
    }
  }

  private async memberOrFail(em: EntityManager, organizationId: string, userId: string): Promise<Member> {
    const member = await this.memberships.find(organizationId, userId, em);
    if (!member) throw new MemberNotFoundError();
    return toMember(member);
  }

  /** `lastAdminRefusal` with the admins counted (called with the organisation locked). */
  private async assertKeepsAnAdmin(em: EntityManager, organizationId: string, current: MembershipRole, change: MembershipChange): Promise<void> {
    const admins = current === 'admin' ? await this.memberships.countAdmins(organizationId, em) : 0;
    const refusal = lastAdminRefusal(current, change, admins);
    if (refusal) throw refusal;
  }
}

function toMember(member: MemberRecord): Member {
  return { userId: member.userId, email: member.email, name: member.name, role: member.role, joinedAt: member.joinedAt.toISOString() };
}

/** What the audit event of a removal or demotion records about the person's credentials. */
function auditSummary(report: OffboardingReport, scimTokens: ScimTokensOffboarded): Record<string, unknown> {
  return {
    [report.apiKeys.outcome === 'revoked' ? 'apiKeysRevoked' : 'apiKeysHandedOver']: report.apiKeys.keys.map((k) => k.id),
    [scimTokens.outcome === 'revoked' ? 'scimTokensEnded' : 'scimTokensHandedOver']: scimTokens.tokens.map((k) => k.id),
    serviceKeys: report.serviceKeys.map((k) => k.id),
    derivedTokens: report.derivedTokens.map((t) => t.id),
  };
}

function offboardingOf(organizationId: string, report: OffboardingReport, scimTokens: ScimTokensOffboarded): Offboarding {
  const base = `/api/organizations/${organizationId}`;
  return {
    apiKeys: { outcome: report.apiKeys.outcome, count: report.apiKeys.keys.length, items: report.apiKeys.keys },
    scimTokensEnded: scimTokens.outcome === 'revoked' ? scimTokens.tokens : [],
    scimTokensHandedOver: scimTokens.outcome === 'handed_over' ? scimTokens.tokens : [],
    serviceKeys: report.serviceKeys.map((k) => ({
      ...k,
      tokens: { method: 'GET', path: `${base}/agent-service-keys/${k.id}/tokens` },
      revoke: { method: 'POST', path: `${base}/agent-service-keys/${k.id}/revoke` },
    })),
    derivedTokens: report.derivedTokens.map((t) => ({
      ...t,
      rotate: { method: 'POST', path: `${base}/agent-service-keys/${t.serviceKeyId}/tokens/${t.id}/rotate` },
    })),
  };
}
