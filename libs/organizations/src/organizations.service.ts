import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
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
  ) {}

  async listFor(userId: string): Promise<OrganizationDto[]> {
    return (await this.organizations.listForMember(userId)).map(toDto);
  }

  async getFor(userId: string, organizationId: string): Promise<OrganizationDto> {
    const organization = await this.organizations.findForMember(userId, organizationId);
    if (!organization) throw new OrganizationNotFoundError();
    return toDto(organization);
  }

  /** A new organisation whose only admin is its creator. */
  async create(userId: string, name: string, origin?: RequestOrigin): Promise<OrganizationDto> {
    return this.dataSource.transaction(async (em) => {
      const organization = await this.organizations.create(name, userId, em);
      await this.audit.record(em, {
        organizationId: organization.id,
        actorType: 'user',
        actorId: userId,
        action: 'organization.created',
        targetType: 'organization',
        targetId: organization.id,
        metadata: { name: organization.name, via: 'api' },
        origin,
      });
      return toDto({ ...organization, role: 'admin' });
    });
  }
}

function toDto(row: Pick<MemberOrganization, 'id' | 'name' | 'createdAt' | 'role'>): OrganizationDto {
  return { id: row.id, name: row.name, createdAt: row.createdAt.toISOString(), role: row.role };
}
