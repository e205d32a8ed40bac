import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credentials';
import { SsoRouting } from '@app/identity';
import {
  hashPassword,
  InvalidInvitationError,
  InvitationDirectory,
  MembershipRole,
  OrganizationDirectory,
  UserDirectory,
} from '@app/tenancy';
import { EmailTakenError } from './auth.errors';

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
  ) {}

  async createAccount(input: NewAccount, via: 'signup' | 'cli', origin?: RequestOrigin): Promise<CreatedAccount> {
    const invitationHash = input.invitation ? invitationDigest(input.invitation) : undefined;
    // The link is judged before the email: a made-up link gets the same 404 whether or not an
    // account uses the email (with sign-up off, only a real invitation's holder reaches the
    // email check).
    if (invitationHash && !(await this.invitations.findOpenByHash(invitationHash))) throw new InvalidInvitationError();
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
        if (await this.routing.isDeprovisioned(invitation.organizationId, input.email, em)) throw new InvalidInvitationError();
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
}

/** The stored digest of an invitation secret; a malformed one is refused before any query. */
export function invitationDigest(secret: string): string {
  if (!isWellFormedToken(secret, TOKEN_PREFIXES.invitation)) throw new InvalidInvitationError();
  return hashToken(secret);
}
