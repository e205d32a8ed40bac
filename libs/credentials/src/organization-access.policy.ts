import { ForbiddenException, Injectable } from '@nestjs/common';
import { isUuid } from '@app/database';
import { MembershipDirectory, MembershipRole, roleSatisfies } from '@app/tenancy';
import type { RestAccessOptions } from './access.decorators';
import type { RestPrincipal } from './principal';
import { OrganizationNotFound } from './organization-not-found';
import { SessionReach } from '@app/people';

/**
 * The access rule of every REST route, in one place (the guard calls `authorize` after it has
 * authenticated a session or an `rk_` key):
 * - routes under an organisation (`@OrganizationRoute(param)`): an `rk_` key reaches only its own organisation and
 *   only with the route's permission; a session needs a membership with at least the route's
 *   role (default admin). Another organisation, or one that does not exist, is "not found", for
 *   every kind of credential, before any other check, so a 403 never confirms that it exists;
 *   a member's session that does not open the organisation (`SessionReach`: it requires single
 *   sign-on through its identity provider, which the session is not) is a 403
 *   `SessionReachError` (`sso_required`);
 * - `sessionOnly` routes refuse `rk_` keys with 403 (after the organisation check);
 * - elsewhere, an `rk_` key must hold the route's `permission` if it declares one.
 */
@Injectable()
export class OrganizationAccessPolicy {
  constructor(
    private readonly memberships: MembershipDirectory,
    private readonly reach: SessionReach,
  ) {}

  async authorize(principal: RestPrincipal, access: RestAccessOptions, orgId: string | undefined): Promise<void> {
    if (orgId !== undefined) {
      await this.check(principal, orgId, access);
      return;
    }
    if (principal.kind !== 'api_key') return;
    if (access.sessionOnly) throw sessionOnlyError();
    if (access.permission && !principal.permissions.includes(access.permission)) {
      throw new ForbiddenException(`This API key lacks the permission ${access.permission}`);
    }
  }

  /** `next`: for a page, the path a refused person comes back to after signing in as the organisation needs. */
  async check(principal: RestPrincipal, orgId: string, access: RestAccessOptions, next?: string): Promise<void> {
    if (!isUuid(orgId)) throw new OrganizationNotFound();
    if (principal.kind === 'api_key') {
      if (principal.organizationId !== orgId) throw new OrganizationNotFound();
      if (access.sessionOnly) throw sessionOnlyError();
      if (!access.permission || !principal.permissions.includes(access.permission)) {
        throw new ForbiddenException(
          access.permission
            ? `This API key lacks the permission ${access.permission}`
            : 'This route needs an administrator session; API keys cannot call it',
        );
      }
      return;
    }
    const role = await this.reach.roleIn(principal, orgId, next);
    if (!role) throw new OrganizationNotFound();
    if (!roleSatisfies(role, access.minRole ?? 'admin')) {
      throw new ForbiddenException('This action needs the admin role in the organization');
    }
  }

  roleOf(userId: string, orgId: string): Promise<MembershipRole | null> {
    return this.memberships.roleOf(userId, orgId);
  }
}

function sessionOnlyError() {
  return new ForbiddenException('This route needs a session; API keys cannot call it');
}
