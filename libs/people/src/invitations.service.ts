import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, PAGE_SIZE_DEFAULT } from '@app/common';
import { AppConfig } from '@app/config';
import type { SessionPrincipal } from './session-principal';
import { userOf } from './session-principal';
import { SessionTokenService } from './session-token.service';
import { generateToken, hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';
import { IdentityProviderDirectory } from '@app/identity';
import { InvalidInvitationError, InvitationDirectory, InvitationRecord, InvitationStatus, MembershipDirectory, MembershipRole, OrganizationDirectory } from '@app/tenancy';
import { acceptanceRefusal } from './invitation-rules';
import { InvitationNotFoundError } from './people.errors';
import type { AcceptedInvitation, CreatedInvitation, Invitation, InvitationList } from './people.types';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Invitations replace adding people by email: an admin invites an email with a role and gets a
 * link (secret `dgi_…`, shown once, stored as its SHA-256 digest); nothing is granted until a
 * signed-in person presents that link, or someone signs up from it. The answer to an invitation
 * is the same whether or not an account uses the email, so it tells nothing about accounts.
 */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly invitations: InvitationDirectory,
    private readonly organizations: OrganizationDirectory,
    private readonly memberships: MembershipDirectory,
    private readonly sessions: SessionTokenService,
    private readonly providers: IdentityProviderDirectory,
  ) {}

  async invite(organizationId: string, input: { email: string; role: MembershipRole }, actor: AuditActor): Promise<CreatedInvitation> {
    return this.dataSource.transaction((em) => this.inviteIn(em, organizationId, input, actor));
  }

  /** `invite` inside the caller's transaction (SCIM: the invitation commits with the provisioned person). */
  async inviteIn(em: EntityManager, organizationId: string, input: { email: string; role: MembershipRole }, actor: AuditActor): Promise<CreatedInvitation> {
    const { email, role } = input;
    const token = generateToken(TOKEN_PREFIXES.invitation);
    const invitation = await this.invitations.create(
      {
        organizationId,
        email,
        role,
        tokenHash: hashToken(token),
        invitedBy: userOf(actor),
        expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      },
      em,
    );
    await this.audit.record(em, {
      organizationId,
      ...actor,
      action: 'invitation.created',
      targetType: 'invitation',
      targetId: invitation.id,
      metadata: { email: invitation.email, role },
    });
    return { ...toInvitation(invitation), link: `${this.config.baseUrl}/signup?invitation=${token}`, token };
  }

  /** A page of the invitations, newest first, optionally of one status (keyset: `nextCursor`). */
  async page(organizationId: string, options: { limit?: number; cursor?: string; status?: InvitationStatus } = {}): Promise<InvitationList> {
    const limit = options.limit ?? PAGE_SIZE_DEFAULT;
    const after = options.cursor === undefined ? undefined : decodeKeysetCursor(options.cursor);
    const rows = await this.invitations.page(organizationId, limit + 1, { after, status: options.status });
    const page = keysetPage(rows, limit, (i) => encodeKeysetCursor(i.position));
    return { items: page.items.map(toInvitation), nextCursor: page.nextCursor };
  }

  /** A pending invitation of the organisation (what withdrawing it would end); another organisation's or a used one → not found. */
  async getPending(organizationId: string, invitationId: string): Promise<Invitation> {
    const invitation = await this.invitations.findPending(organizationId, invitationId);
    if (!invitation) throw new InvitationNotFoundError();
    return toInvitation(invitation);
  }

  async withdraw(organizationId: string, invitationId: string, actor: AuditActor): Promise<Invitation> {
    return this.dataSource.transaction(async (em) => {
      const invitation = await this.withdrawIn(em, organizationId, invitationId, actor);
      if (!invitation) throw new InvitationNotFoundError();
      return toInvitation(invitation);
    });
  }

  /** Withdraws an open invitation in the caller's transaction, audited; null when it is not open. `metadata` adds to the event's (a `reason`). */
  async withdrawIn(em: EntityManager, organizationId: string, invitationId: string, actor: AuditActor, metadata: Record<string, unknown> = {}) {
    const invitation = await this.invitations.withdraw(organizationId, invitationId, em);
    if (invitation) await this.recordWithdrawn(em, organizationId, invitation, actor, metadata);
    return invitation;
  }

  /** The `invitation.withdrawn` event of an invitation already marked withdrawn, in the caller's transaction. */
  recordWithdrawn(em: EntityManager, organizationId: string, invitation: { id: string; email: string; role: string }, actor: AuditActor, metadata: Record<string, unknown> = {}): Promise<void> {
    return this.audit.record(em, {
      organizationId,
      ...actor,
      action: 'invitation.withdrawn',
      targetType: 'invitation',
      targetId: invitation.id,
      metadata: { email: invitation.email, role: invitation.role, ...metadata },
    });
  }

  /**
   * What a link offers the signed-in person `userId` before they accept (the invitation page):
   * the organisation, the role, the invited email and whether they already are a member; null
   * for a link that does not work (unknown, used, withdrawn, expired: one answer for all).
   */
  async preview(
    token: string,
    userId: string,
  ): Promise<{ organizationId: string; organizationName: string; role: MembershipRole; email: string; alreadyMember: boolean } | null> {
    if (!isWellFormedToken(token, TOKEN_PREFIXES.invitation)) return null;
    const open = await this.invitations.findOpenByHash(hashToken(token));
    if (!open) return null;
    const role = await this.memberships.roleOf(userId, open.organizationId);
    return { organizationId: open.organizationId, organizationName: open.organizationName, role: open.role, email: open.email, alreadyMember: role !== null };
  }

  /**
   * A signed-in person presents the link: they join with the invited role. The link is used
   * once; a person who already is a member gets 409 and the link stays usable. With
   * `onlyForEmail` (the dashboard's invitation page), an invitation for another email is refused
   * (403) and stays usable too. With `session` (the session that presented it), that session ends
   * and a new one is issued (the same kind of sign-in), which opens the organisation: an older
   * session never opens a membership that began after it (SPEC §10).
   */
  async accept(
    input: { token: string },
    actor: AuditActor,
    options: { onlyForEmail?: string; session?: SessionPrincipal } = {},
  ): Promise<AcceptedInvitation> {
    const { token } = input;
    const userId = userOf(actor);
    if (!userId || !isWellFormedToken(token, TOKEN_PREFIXES.invitation)) throw new InvalidInvitationError();
    const invitation = await this.dataSource.transaction(async (em) => {
      const accepted = await this.invitations.accept(hashToken(token), userId, em);
      if (!accepted) throw new InvalidInvitationError();
      // A person SCIM deprovisioned in that organisation is not brought back by a link (SPEC §10): rolled back with the claim.
      if (await this.providers.isDeprovisioned(accepted.invitation.organizationId, { userId }, em)) throw new InvalidInvitationError();
      // Refused (the page's other email, already a member): rolled back with the claim.
      const refusal = acceptanceRefusal(accepted.invitation.email, accepted.joined, options.onlyForEmail);
      if (refusal) throw refusal;
      const { invitation: used } = accepted;
      for (const action of ['invitation.accepted', 'member.added'] as const) {
        await this.audit.record(em, {
          organizationId: used.organizationId,
          ...actor,
          action,
          targetType: action === 'member.added' ? 'user' : 'invitation',
          targetId: action === 'member.added' ? userId : used.id,
          metadata: { role: used.role, invitationId: used.id },
        });
      }
      return used;
    });
    const organization = await this.organizations.findForMember(userId, invitation.organizationId);
    const accepted = { organizationId: invitation.organizationId, organizationName: organization?.name ?? '', role: invitation.role };
    if (!options.session) return accepted;
    await this.sessions.end(options.session);
    const renewed = await this.sessions.issue(userId, actor.origin ?? {}, { ssoIssuer: options.session.ssoIssuer });
    return { ...accepted, ...renewed };
  }
}

function toInvitation(i: InvitationRecord): Invitation {
  return {
    id: i.id,
    organizationId: i.organizationId,
    email: i.email,
    role: i.role,
    status: i.status,
    invitedBy: i.invitedBy,
    createdAt: i.createdAt.toISOString(),
    expiresAt: i.expiresAt.toISOString(),
    acceptedAt: i.acceptedAt ? i.acceptedAt.toISOString() : null,
  };
}
