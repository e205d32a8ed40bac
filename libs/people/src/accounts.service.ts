import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService, RequestOrigin } from '@app/audit';
import { hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';
import { emailDomain, IdentityLinkDirectory, IdentityProviderDirectory, SsoRouting } from '@app/identity';
import { DomainError } from '@app/common';
import { hashPassword, InvalidInvitationError, InvitationDirectory, MembershipRole, OrganizationDirectory, UserDirectory } from '@app/tenancy';
import { EmailTakenError, SsoRequiredForDomainError } from './account.errors';

export interface NewAccount {
  email: string;
  password: string;
  name: string;
  /** The new organisation's name; ignored with an invitation. */
  organizationName?: string;
  /** An invitation link's secret: join its organisation instead of creating one. */
  invitation?: string;
}

export interface CreatedAccount {
  user: { id: string; email: string; name: string };
  organization: { id: string; name: string };
  /** The role in `organization`: admin of a new one, or the invited role. */
  role: MembershipRole;
}

/**
 * Creates a person together with their first organisation, where they are the administrator:
 * what signup does, and what the command line does on a deployment where signup is off. With
 * an invitation link, the person joins the inviting organisation instead (no organisation is
 * created). One transaction: the user, the organisation or the used invitation, the membership
 * and the audit events.
 */
@Injectable()
export class AccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly users: UserDirectory,
    private readonly organizations: OrganizationDirectory,
    private readonly invitations: InvitationDirectory,
    private readonly routing: SsoRouting,
    private readonly links: IdentityLinkDirectory,
    private readonly providers: IdentityProviderDirectory,
  ) {}

  async createAccount(input: NewAccount, via: 'signup' | 'cli', origin?: RequestOrigin): Promise<CreatedAccount> {
    const invitationHash = input.invitation ? invitationDigest(input.invitation) : undefined;
    // The link is judged before the email: a made-up link gets the same 404 whether or not an
    // account uses the email (with sign-up off, only a real invitation's holder reaches the
    // email check).
    if (invitationHash && !(await this.invitations.findOpenByHash(invitationHash))) throw new InvalidInvitationError();
    // Verified domains own their emails (SPEC §10): their accounts come from single sign-on or SCIM.
    if (await this.routing.routeFor(input.email)) throw new SsoRequiredForDomainError(emailDomain(input.email) ?? '');
    if (await this.users.isEmailTaken(input.email)) throw new EmailTakenError();
    const passwordHash = await hashPassword(input.password);
    const created = await this.dataSource.transaction(async (em) => {
      // A parallel signup with the same email loses here (nothing else has been written yet).
      const user = await this.users.create({ email: input.email, name: input.name, passwordHash }, em);
      if (!user) throw new EmailTakenError();
      if (invitationHash) {
        const accepted = await this.invitations.accept(invitationHash, user.id, em);
        if (!accepted) throw new InvalidInvitationError();
        const { invitation } = accepted;
        // An email SCIM deprovisioned in that organisation is not brought back by a link (SPEC §10).
        if (await this.providers.isDeprovisioned(invitation.organizationId, { userId: user.id }, em)) throw new InvalidInvitationError();
        for (const action of ['invitation.accepted', 'member.added'] as const) {
          await this.audit.record(em, {
            organizationId: invitation.organizationId,
            actorType: 'user',
            actorId: user.id,
            action,
            targetType: action === 'member.added' ? 'user' : 'invitation',
            targetId: action === 'member.added' ? user.id : invitation.id,
            metadata: { role: invitation.role, invitationId: invitation.id, via: 'signup' },
            origin,
          });
        }
        return { user, organizationId: invitation.organizationId, role: invitation.role };
      }
      const organization = await this.organizations.create(input.organizationName ?? '', user.id, em);
      await this.audit.record(em, {
        organizationId: organization.id,
        actorType: via === 'cli' ? 'cli' : 'user',
        actorId: via === 'cli' ? null : user.id,
        action: 'organization.created',
        targetType: 'organization',
        targetId: organization.id,
        metadata: { name: organization.name, via, adminUserId: user.id },
        origin,
      });
      return { user, organizationId: organization.id, role: 'admin' as const };
    });
    const organization = await this.organizations.findForMember(created.user.id, created.organizationId);
    return { user: created.user, organization: { id: created.organizationId, name: organization?.name ?? '' }, role: created.role };
  }

  /**
   * The operator's `release-email` (SPEC §10): frees an address of a verified single sign-on
   * domain that a password account took before the domain was verified. The account keeps its id
   * and memberships, is given `releasedAddress(id)` and loses its sessions; audited in the
   * service's chain. An account linked to single sign-on (or made by SCIM) is the person's own
   * and is refused, as is an address no verified domain reserves.
   */
  async releaseEmail(email: string, actor: AuditActor): Promise<ReleasedEmail> {
    const userId = await this.users.idByEmail(email);
    if (!userId) throw new DomainError('account_not_found', `No account uses the email ${email}`, 'not_found');
    const route = await this.routing.routeFor(email);
    if (!route) {
      throw new DomainError(
        'email_not_reserved',
        `${emailDomain(email) ?? email} is not a verified domain of an organization with single sign-on: its addresses are not reserved, so nothing is released`,
        'conflict',
      );
    }
    const current = (await this.users.findById(userId))!.email;
    if (await this.links.hasAnyLink(userId)) {
      throw new DomainError('account_linked', `The account of ${current} is linked to single sign-on: it is that person's own, and is not released`, 'conflict');
    }
    const replacement = releasedAddress(userId);
    await this.dataSource.transaction(async (em) => {
      if (!(await this.users.replaceEmail(userId, current, replacement, em))) throw new DomainError('account_not_found', `No account uses the email ${email}`, 'not_found');
      await this.audit.record(em, {
        organizationId: null,
        actorType: actor.actorType,
        actorId: actor.actorId,
        action: 'account.email_released',
        targetType: 'user',
        targetId: userId,
        metadata: { email: current, replacement, organizationId: route.organizationId },
        origin: actor.origin,
      });
    });
    return { userId, email: current, replacement };
  }
}

/** What `releaseEmail` did: the account that had the address, and the address it has now. */
export interface ReleasedEmail {
  userId: string;
  email: string;
  replacement: string;
}

/** The address a released account is given: unique, and of the reserved `.invalid` top-level domain (RFC 2606), so no mail or sign-up reaches it. */
export const releasedAddress = (userId: string) => `released-${userId}@released.invalid`;

/** The stored digest of an invitation secret; a malformed one is refused before any query. */
export function invitationDigest(secret: string): string {
  if (!isWellFormedToken(secret, TOKEN_PREFIXES.invitation)) throw new InvalidInvitationError();
  return hashToken(secret);
}
