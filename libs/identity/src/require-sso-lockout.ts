import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ConflictError } from '@app/common';
import { MembershipDirectory, type MemberRecord } from '@app/tenancy';
import { IdentityLinkDirectory } from './identity-links.directory';

/** A member who could not open the organisation once single sign-on is required. */
export type LockedOutMember = Pick<MemberRecord, 'userId' | 'email' | 'name' | 'role'>;

/** How many of them a message names (the page lists them all). */
const NAMED = 20;

/**
 * Turning on "require single sign-on" would lock people out: the save is refused until the admin
 * confirms (`confirmLockout: true`). The message names them, admins first.
 */
export class LockoutConfirmationRequiredError extends ConflictError {
  constructor(readonly people: LockedOutMember[]) {
    const named = people.slice(0, NAMED).map((p) => `${p.email} (${p.role})`);
    const more = people.length > NAMED ? ` and ${people.length - NAMED} more` : '';
    super(
      'lockout_confirmation_required',
      `Requiring single sign-on would lock out ${people.length === 1 ? '1 person' : `${people.length} people`} who cannot sign in through the identity provider ` +
        `(no account linked to it, and no email of a verified domain): ${named.join(', ')}${more}. ` +
        'Save again with confirmLockout true to require it anyway, or verify their email domains first.',
    );
    this.name = 'LockoutConfirmationRequiredError';
  }
}

/**
 * Who "require single sign-on" would lock out of an organisation: the members who can sign in
 * through its identity provider are those linked to an account of its issuer, and those whose
 * email is of one of its verified domains (sign-in routes them there and links or makes their
 * account). Everyone else has no session that opens it once it is required.
 */
@Injectable()
export class RequireSsoLockout {
  constructor(
    private readonly memberships: MembershipDirectory,
    private readonly links: IdentityLinkDirectory,
  ) {}

  /** The members who could not sign in through `issuer`, admins first, then by email. */
  async lockedOut(organizationId: string, issuer: string, verifiedDomains: readonly string[], em: EntityManager): Promise<LockedOutMember[]> {
    const outside = await this.memberships.outsideDomains(organizationId, verifiedDomains, em);
    const linked = await this.links.linkedAmong(issuer, outside.map((m) => m.userId), em);
    return outside.filter((m) => !linked.has(m.userId)).map(({ userId, email, name, role }) => ({ userId, email, name, role }));
  }
}
