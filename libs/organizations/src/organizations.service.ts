import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import type { OrganizationDto } from './dto/organization.dto';
import type { MembershipRole } from './entities/membership.entity';
import { OrganizationNotFoundError } from './organizations.errors';

interface OrganizationRow {
  id: string;
  name: string;
  created_at: Date;
  role: MembershipRole;
}

/** Organisations as a signed-in person sees them: the ones they belong to, with their role. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async listFor(userId: string): Promise<OrganizationDto[]> {
    const rows: OrganizationRow[] = await this.dataSource.query(
      `SELECT o.id, o.name, o.created_at, m.role
         FROM memberships m JOIN organizations o ON o.id = m.organization_id
        WHERE m.user_id = $1
        ORDER BY o.created_at, o.id`,
      [userId],
    );
    return rows.map(toDto);
  }

  async getFor(userId: string, organizationId: string): Promise<OrganizationDto> {
    const rows: OrganizationRow[] = await this.dataSource.query(
      `SELECT o.id, o.name, o.created_at, m.role
         FROM memberships m JOIN organizations o ON o.id = m.organization_id
        WHERE m.user_id = $1 AND o.id = $2`,
      [userId, organizationId],
    );
    if (!rows[0]) throw new OrganizationNotFoundError();
    return toDto(rows[0]);
  }

  /** A new organisation whose only admin is its creator. */
  async create(userId: string, name: string, origin?: RequestOrigin): Promise<OrganizationDto> {
    return this.dataSource.transaction(async (em) => {
      const [row] = (await em.query('INSERT INTO organizations (name) VALUES ($1) RETURNING id, name, created_at', [name])) as Omit<
        OrganizationRow,
        'role'
      >[];
      await em.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'admin')`, [row!.id, userId]);
      await this.audit.record(em, {
        organizationId: row!.id,
        actorType: 'user',
        actorId: userId,
        action: 'organization.created',
        targetType: 'organization',
        targetId: row!.id,
        metadata: { name: row!.name, via: 'api' },
        origin,
      });
      return toDto({ ...row!, role: 'admin' });
    });
  }
}

function toDto(row: OrganizationRow): OrganizationDto {
  return { id: row.id, name: row.name, createdAt: new Date(row.created_at).toISOString(), role: row.role };
}
