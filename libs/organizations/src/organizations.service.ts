import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { requireUser, SessionPrincipal, SessionReach } from '@app/people';
import { MemberOrganization, OrganizationDirectory } from '@app/tenancy';
import type { OrganizationDto } from './dto/organization.dto';
import { OrganizationNotFoundError } from './organizations.errors';

/** Organisations as a signed-in person sees them: the ones they belong to, with their role. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly organizations: OrganizationDirectory,
    private readonly reach: SessionReach,
  ) {}

  /** The organisations the person belongs to that this session opens (`SessionReach`). */
  async listFor(session: SessionPrincipal): Promise<OrganizationDto[]> {
    return (await this.reach.organizationsOf(session)).open.map(toDto);
  }

  async getFor(userId: string, organizationId: string): Promise<OrganizationDto> {
    const organization = await this.organizations.findForMember(userId, organizationId);
    if (!organization) throw new OrganizationNotFoundError();
    return toDto(organization);
  }

  /** A new organisation whose only admin is its creator, the signed-in person acting. */
  async create(input: { name: string }, actor: AuditActor): Promise<OrganizationDto> {
    const userId = requireUser(actor);
    return this.dataSource.transaction(async (em) => {
      const organization = await this.organizations.create(input.name, userId, em);
      await this.audit.record(em, {
        organizationId: organization.id,
        ...actor,
        action: 'organization.created',
        targetType: 'organization',
        targetId: organization.id,
        metadata: { name: organization.name, via: 'api' },
      });
      return toDto({ ...organization, role: 'admin' });
    });
  }
}

function toDto(row: Pick<MemberOrganization, 'id' | 'name' | 'createdAt' | 'role'>): OrganizationDto {
  return { id: row.id, name: row.name, createdAt: row.createdAt.toISOString(), role: row.role };
}
