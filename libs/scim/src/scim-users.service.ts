import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { AppConfig } from '@app/config';
import { emailDomain, IdentityLinkDirectory, IdentityProviderDirectory, ProvisionedUser, ProvisionedUserDirectory } from '@app/identity';
import { InvitationsService, MembersService } from '@app/people';
import { ScimTokensService } from '@app/scim-tokens';
import { InvitationDirectory, MembershipDirectory, NO_PASSWORD, OrganizationDirectory, UserDirectory } from '@app/tenancy';
import { ScimDomainNotVerifiedError, ScimError, ScimTokenMakerError, ScimUserNameTakenError, ScimUserNotFoundError } from './scim.errors';
import { parseFilter, queryInteger } from './scim-filter';
import { SCIM_MAX_RESULTS, SCIM_SCHEMAS } from './scim-schemas';
import { applyPatch, parseUserResource, type ScimUserState } from './scim-user.input';
import { accountName, initialState, scimUserResource, stateOf } from './scim-user.resource';

export interface ScimListQuery {
  filter?: unknown;
  startIndex?: unknown;
  count?: unknown;
}

/**
 * The `Users` resource of an organisation's SCIM client (RFC 7643/7644), on identity's
 * provisioned people and the organisations' own services:
 * - create, for an email of a verified domain of the organisation only: without an account, the
 *   account (no password), its membership with the role and a pending link to the organisation's
 *   identity provider (linked at the first SSO sign-in); with an account, an invitation (never a
 *   link; nothing when the person already is a member);
 * - `active` false, or delete: an offboarding in that organisation (`MembersService.removeIn`:
 *   membership, grants and agent tokens there, `rk_` keys; service keys listed), with a pending
 *   invitation withdrawn, in the same transaction as the resource's change; `active` true again
 *   brings the membership back with the role (an invitation again for an account SCIM did not make);
 * - a role change through the extension attribute is `MembersService.changeRoleIn` (a demotion
 *   as an admin's is; never the last admin);
 * - names are kept on the resource; the account's name follows them only for accounts SCIM made.
 * Every change is audited with the SCIM token as the actor, in its transaction.
 */
@Injectable()
export class ScimUsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly provisioned: ProvisionedUserDirectory,
    private readonly providers: IdentityProviderDirectory,
    private readonly links: IdentityLinkDirectory,
    private readonly users: UserDirectory,
    private readonly memberships: MembershipDirectory,
    private readonly organizations: OrganizationDirectory,
    private readonly invitationRows: InvitationDirectory,
    private readonly members: MembersService,
    private readonly invitations: InvitationsService,
    private readonly tokens: ScimTokensService,
  ) {}

  /**
   * Refuses a change a `scim_` token makes to the person who made it (create, reactivate, role):
   * a deprovisioned admin must not reinstate themselves with a token they made (SPEC §10).
   */
  private async assertNotMaker(em: EntityManager, actor: AuditActor, userId: string | null, what: string): Promise<void> {
    if (!userId || actor.actorType !== 'scim_token' || !actor.actorId) return;
    if ((await this.tokens.makerOf(actor.actorId, em)) === userId) throw new ScimTokenMakerError(what);
  }

  private get base(): string {
    return `${this.config.baseUrl}/scim/v2`;
  }

  async get(organizationId: string, id: string) {
    const row = await this.provisioned.find(organizationId, id);
    if (!row) throw new ScimUserNotFoundError();
    return scimUserResource(row, this.base);
  }

  async list(organizationId: string, query: ScimListQuery) {
    const filter = parseFilter(query.filter);
    const startIndex = Math.max(1, queryInteger(query.startIndex, 'startIndex') ?? 1);
    const count = Math.min(SCIM_MAX_RESULTS, Math.max(0, queryInteger(query.count, 'count') ?? 100));
    const { total, items } = await this.provisioned.page(organizationId, filter, startIndex - 1, count);
    return {
      schemas: [SCIM_SCHEMAS.listResponse],
      totalResults: total,
      startIndex,
      itemsPerPage: items.length,
      Resources: items.map((row) => scimUserResource(row, this.base)),
    };
  }

  async create(organizationId: string, body: unknown, actor: AuditActor) {
    const input = parseUserResource(body);
    await this.assertVerifiedDomain(organizationId, input.userName);
    const row = await this.dataSource.transaction(async (em) => {
      await this.organizations.lock(organizationId, em);
      const existing = await this.provisioned.byUserName(organizationId, input.userName, em);
      if (existing && !existing.deletedAt) throw new ScimUserNameTakenError();
      if (existing) await this.provisioned.forgetDeleted(existing.id, em);
      const state = initialState(input);
      await this.assertNotMaker(em, actor, existing?.userId ?? (await this.users.idByEmail(state.userName, em)), 'create');
      // An account SCIM made before the client deleted the person stays one SCIM made.
      const previous = existing?.accountCreated && existing.userId ? existing : null;
      const placed = state.active ? await this.provision(em, organizationId, state, previous, actor, input.role !== undefined) : await this.unplaced(em, state, previous);
      const created = await this.provisioned.insert(
        {
          organizationId,
          userId: placed.userId,
          userName: state.userName,
          externalId: state.externalId,
          givenName: state.givenName,
          familyName: state.familyName,
          displayName: state.displayName,
          active: state.active,
          role: state.role,
          invitationId: placed.invitationId,
          accountCreated: placed.accountCreated,
        },
        em,
      );
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'scim.user_created',
        targetType: 'user',
        targetId: placed.userId,
        metadata: { scimId: created.id, userName: state.userName, externalId: state.externalId, role: state.role, active: state.active, outcome: placed.outcome, ...(placed.pendingLinkIssuer ? { pendingLinkIssuer: placed.pendingLinkIssuer } : {}) },
      });
      return created;
    });
    return scimUserResource(row, this.base);
  }

  async replace(organizationId: string, id: string, body: unknown, actor: AuditActor) {
    const input = parseUserResource(body);
    return this.change(organizationId, id, actor, 'put', (current) => ({
      userName: input.userName,
      externalId: input.externalId ?? null,
      givenName: input.givenName ?? null,
      familyName: input.familyName ?? null,
      displayName: input.displayName ?? null,
      active: input.active ?? current.active,
      role: input.role ?? current.role,
    }));
  }

  async patch(organizationId: string, id: string, body: unknown, actor: AuditActor) {
    return this.change(organizationId, id, actor, 'patch', (current) => applyPatch(current, body));
  }

  /** DELETE: an offboarding like `active` false, and the resource is gone from `/scim/v2`. */
  async remove(organizationId: string, id: string, actor: AuditActor): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await this.organizations.lock(organizationId, em);
      const row = await this.provisioned.find(organizationId, id, em, { lock: true });
      if (!row) throw new ScimUserNotFoundError();
      const offboarding = row.active ? await this.deprovision(em, organizationId, row, actor) : null;
      await this.provisioned.markDeleted(row.id, em);
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'scim.user_deleted',
        targetType: 'user',
        targetId: row.userId,
        metadata: { scimId: row.id, userName: row.userName, ...(offboarding ?? {}) },
      });
    });
  }

  /** A replace or a patch: the new state from the current one, then what follows from the difference, in one transaction. */
  private async change(organizationId: string, id: string, actor: AuditActor, kind: 'put' | 'patch', next: (current: ScimUserState) => ScimUserState) {
    const row = await this.dataSource.transaction(async (em) => {
      await this.organizations.lock(organizationId, em);
      const row = await this.provisioned.find(organizationId, id, em, { lock: true });
      if (!row) throw new ScimUserNotFoundError();
      const current = stateOf(row);
      const wanted = next(current);
      if (wanted.userName !== current.userName) {
        throw ScimError.mutability('userName cannot change: deprovision this user and provision the new email');
      }
      const changed = (Object.keys(wanted) as (keyof ScimUserState)[]).filter((key) => wanted[key] !== current[key]);
      let userId = row.userId;
      let invitationId = row.invitationId;
      let offboarding: Record<string, unknown> | null = null;
      const target = row.userId ?? (await this.users.idByEmail(row.userName, em));
      if (!current.active && wanted.active) await this.assertNotMaker(em, actor, target, 'reactivate');
      else if (wanted.role !== current.role) await this.assertNotMaker(em, actor, target, 'change the role of');
      if (current.active && !wanted.active) {
        offboarding = await this.deprovision(em, organizationId, row, actor);
      } else if (!current.active && wanted.active) {
        const placed = await this.provision(em, organizationId, wanted, row, actor, true);
        userId = placed.userId;
        invitationId = placed.invitationId;
      } else if (wanted.active && wanted.role !== current.role) {
        if (row.userId && (await this.memberships.roleOf(row.userId, organizationId, em))) {
          await this.members.changeRoleIn(em, organizationId, row.userId, { role: wanted.role, handOverTo: null }, actor);
        } else if (row.invitationId) {
          // A pending invitation is sent anew with the new role.
          const withdrawn = await this.invitations.withdrawIn(em, organizationId, row.invitationId, actor, { reason: 'scim_role_changed' });
          if (withdrawn) {
            invitationId = (await this.invitations.inviteIn(em, organizationId, { email: row.userName, role: wanted.role }, actor)).id;
          }
        }
      }
      if (row.accountCreated && row.userId && (changed.includes('givenName') || changed.includes('familyName') || changed.includes('displayName'))) {
        await this.users.rename(row.userId, accountName(wanted), em);
      }
      const { userName: _userName, ...fields } = wanted;
      await this.provisioned.update(row.id, { ...fields, userId, invitationId }, em);
      if (changed.length > 0) {
        await this.audit.record(em, {
          organizationId,
          ...actor,
          action: !current.active && wanted.active ? 'scim.user_reactivated' : current.active && !wanted.active ? 'scim.user_deactivated' : 'scim.user_updated',
          targetType: 'user',
          targetId: userId,
          metadata: { scimId: row.id, userName: row.userName, request: kind, changed, ...(changed.includes('role') ? { role: { from: current.role, to: wanted.role } } : {}), ...(offboarding ?? {}) },
        });
      }
      return this.provisioned.find(organizationId, id, em);
    });
    return scimUserResource(row!, this.base);
  }

  /**
   * Gives the person their place in the organisation: a new account (no password) with its
   * membership and a pending link; the membership again for an account SCIM made; an invitation
   * for an account it did not make (nothing when they already are a member: their role follows
   * `role` when the request named one).
   */
  private async provision(
    em: EntityManager,
    organizationId: string,
    state: ScimUserState,
    row: ProvisionedUser | null,
    actor: AuditActor,
    roleNamed: boolean,
  ): Promise<{ userId: string | null; invitationId: string | null; accountCreated: boolean; outcome: string; pendingLinkIssuer?: string | null }> {
    if (row?.accountCreated && row.userId) {
      await this.addMember(em, organizationId, row.userId, state.role, actor);
      return { userId: row.userId, invitationId: null, accountCreated: true, outcome: 'membership_restored' };
    }
    const accountId = await this.users.idByEmail(state.userName, em);
    if (!accountId) {
      const account = await this.users.create({ email: state.userName, name: accountName(state), passwordHash: NO_PASSWORD }, em);
      if (!account) throw new ScimUserNameTakenError();
      await this.addMember(em, organizationId, account.id, state.role, actor);
      const provider = await this.providers.find(organizationId, em);
      if (provider) await this.links.addPending(account.id, provider.issuer, em);
      return { userId: account.id, invitationId: null, accountCreated: true, outcome: 'account_created', pendingLinkIssuer: provider?.issuer ?? null };
    }
    const role = await this.memberships.roleOf(accountId, organizationId, em);
    if (role) {
      if (roleNamed && role !== state.role) await this.members.changeRoleIn(em, organizationId, accountId, { role: state.role, handOverTo: null }, actor);
      return { userId: accountId, invitationId: null, accountCreated: false, outcome: 'already_member' };
    }
    const invitation = await this.invitations.inviteIn(em, organizationId, { email: state.userName, role: state.role }, actor);
    return { userId: accountId, invitationId: invitation.id, accountCreated: false, outcome: 'invited' };
  }

  /** A person created inactive: nothing is granted; an account SCIM would make is made at activation. */
  private async unplaced(em: EntityManager, state: ScimUserState, previous: ProvisionedUser | null) {
    if (previous) return { userId: previous.userId, invitationId: null, accountCreated: true, outcome: 'inactive', pendingLinkIssuer: null };
    return { userId: await this.users.idByEmail(state.userName, em), invitationId: null, accountCreated: false, outcome: 'inactive', pendingLinkIssuer: null };
  }

  private async addMember(em: EntityManager, organizationId: string, userId: string, role: ScimUserState['role'], actor: AuditActor): Promise<void> {
    if (!(await this.memberships.add(organizationId, userId, role, em))) return;
    await this.audit.record(em, { organizationId, ...actor, action: 'member.added', targetType: 'user', targetId: userId, metadata: { role, via: 'scim' } });
  }

  /**
   * The offboarding of `active` false and of DELETE, in the caller's transaction: the pending
   * invitation withdrawn; the membership removed with what `MembersService.removeIn` ends
   * (grants and agent tokens there, `rk_` keys; the service keys they made listed for rotation),
   * not as an admin's removal: the person's row here (`active` false) is what keeps them out.
   * The last admin is refused (409) and nothing changes.
   */
  private async deprovision(em: EntityManager, organizationId: string, row: ProvisionedUser, actor: AuditActor): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    if (row.invitationId) {
      const withdrawn = await this.invitations.withdrawIn(em, organizationId, row.invitationId, actor, { reason: 'scim_deprovisioned' });
      if (withdrawn) {
        out.invitationWithdrawn = withdrawn.id;
      }
    }
    // Every other pending invitation of the organisation to the person's emails goes too: an old
    // link must not bring them back (SPEC §10).
    const account = row.userId ? await this.users.findById(row.userId, em) : null;
    const others = await this.invitationRows.withdrawOpenTo(organizationId, [row.userName, ...(account ? [account.email] : [])], em);
    for (const invitation of others) await this.invitations.recordWithdrawn(em, organizationId, invitation, actor, { reason: 'scim_deprovisioned' });
    if (others.length) out.invitationsWithdrawn = others.map((i) => i.id);
    // The person, and whoever accepted the invitation SCIM sent if that was another account.
    const accepted = row.invitationId ? await this.invitationRows.acceptedBy(organizationId, row.invitationId, em) : null;
    const people = [...new Set([row.userId, accepted].filter((id): id is string => id !== null))];
    for (const userId of people) {
      if (!(await this.memberships.roleOf(userId, organizationId, em))) continue;
      const removed = await this.members.removeIn(em, organizationId, userId, { handOverTo: null }, actor);
      out.membershipRemoved = true;
      out.revokedTokens = ((out.revokedTokens as number | undefined) ?? 0) + removed.revokedTokens;
      out.apiKeysRevoked = [...((out.apiKeysRevoked as string[] | undefined) ?? []), ...removed.offboarding.apiKeys.items.map((k) => k.id)];
      out.scimTokensEnded = [...((out.scimTokensEnded as string[] | undefined) ?? []), ...removed.offboarding.scimTokensEnded.map((k) => k.id)];
      out.serviceKeysToRotate = [
        ...((out.serviceKeysToRotate as { id: string; name: string }[] | undefined) ?? []),
        ...removed.offboarding.serviceKeys.map((k) => ({ id: k.id, name: k.name })),
      ];
    }
    return out;
  }

  private async assertVerifiedDomain(organizationId: string, email: string): Promise<void> {
    const domain = emailDomain(email) ?? '';
    const domains = await this.providers.domains(organizationId);
    if (!domains.some((d) => d.domain === domain && d.verifiedAt !== null)) throw new ScimDomainNotVerifiedError(domain);
  }
}
