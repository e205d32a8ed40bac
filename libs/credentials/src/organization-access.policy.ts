import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isUuid } from '@app/database';
import type { MembershipRole } from '@app/organizations';
import type { RestAccessOptions } from './access.decorators';
import type { RestPrincipal } from './principal';

/**
 * The organisation rule of every REST route under `/api/organizations/:orgId`, in one place:
 * an `rk_` key reaches only its own organisation and only with the route's permission; a session
 * needs a membership with at least the route's role. Another organisation is "not found".
 */
@Injectable()
export class OrganizationAccessPolicy {
  constructor(private readonly dataSource: DataSource) {}

  async check(principal: RestPrincipal, orgId: string, access: RestAccessOptions): Promise<void> {
    if (!isUuid(orgId)) throw new NotFoundException('Organization not found');
    if (principal.kind === 'api_key') {
      if (principal.organizationId !== orgId) throw new NotFoundException('Organization not found');
      if (!access.permission || !principal.permissions.includes(access.permission)) {
        throw new ForbiddenException(
          access.permission
            ? `This API key lacks the permission ${access.permission}`
            : 'This route needs an administrator session; API keys cannot call it',
        );
      }
      return;
    }
    const role = await this.roleOf(principal.userId, orgId);
    if (!role) throw new NotFoundException('Organization not found');
    const needed = access.minRole ?? 'admin';
    if (needed === 'admin' && role !== 'admin') {
      throw new ForbiddenException('This action needs the admin role in the organization');
    }
  }

  async roleOf(userId: string, orgId: string): Promise<MembershipRole | null> {
    const rows: { role: MembershipRole }[] = await this.dataSource.query(
      'SELECT role FROM memberships WHERE user_id = $1 AND organization_id = $2',
      [userId, orgId],
    );
    return rows[0]?.role ?? null;
  }
}
