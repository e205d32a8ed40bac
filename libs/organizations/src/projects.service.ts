import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { isUuid, queryReturning } from '@app/database';
import { CredentialRevoker } from '@app/credentials';
import type { DeletedProjectDto, ProjectDto } from './dto/project.dto';
import { ProjectNotFoundError } from './organizations.errors';

export interface Actor {
  actorType: string;
  actorId: string | null;
}

interface ProjectRow {
  id: string;
  name: string;
  organization_id: string;
  created_at: Date;
}

/** An organisation's projects. Deleted projects (soft-deleted) are invisible everywhere. */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly revocation: CredentialRevoker,
  ) {}

  async list(organizationId: string): Promise<ProjectDto[]> {
    const rows: ProjectRow[] = await this.dataSource.query(
      `SELECT id, name, organization_id, created_at FROM projects
        WHERE organization_id = $1 AND deleted_at IS NULL
        ORDER BY created_at, id`,
      [organizationId],
    );
    return rows.map(toDto);
  }

  async get(organizationId: string, projectId: string): Promise<ProjectDto> {
    if (!isUuid(projectId)) throw new ProjectNotFoundError();
    const rows: ProjectRow[] = await this.dataSource.query(
      `SELECT id, name, organization_id, created_at FROM projects
        WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
      [projectId, organizationId],
    );
    if (!rows[0]) throw new ProjectNotFoundError();
    return toDto(rows[0]);
  }

  async create(organizationId: string, name: string, actor: Actor, origin?: RequestOrigin): Promise<ProjectDto> {
    return this.dataSource.transaction(async (em) => {
      const [row] = (await em.query(
        'INSERT INTO projects (organization_id, name) VALUES ($1, $2) RETURNING id, name, organization_id, created_at',
        [organizationId, name],
      )) as ProjectRow[];
      await this.audit.record(em, {
        organizationId,
        projectId: row!.id,
        ...actor,
        action: 'project.created',
        targetType: 'project',
        targetId: row!.id,
        metadata: { name: row!.name },
        origin,
      });
      return toDto(row!);
    });
  }

  /**
   * Soft-deletes the project and, in the same transaction, revokes every agent token bound to
   * it, so the next MCP request with one of them is refused. A deleted project is "not found".
   */
  async delete(organizationId: string, projectId: string, actor: Actor, origin?: RequestOrigin): Promise<DeletedProjectDto> {
    if (!isUuid(projectId)) throw new ProjectNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const [row] = await queryReturning<{ id: string; name: string; deleted_at: Date }>(
        em,
        `UPDATE projects SET deleted_at = now()
          WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL
          RETURNING id, name, deleted_at`,
        [projectId, organizationId],
      );
      if (!row) throw new ProjectNotFoundError();
      const { revokedTokens } = await this.revocation.revokeProjectAccess(em, projectId, { ...actor, origin });
      await this.audit.record(em, {
        organizationId,
        projectId,
        ...actor,
        action: 'project.deleted',
        targetType: 'project',
        targetId: projectId,
        metadata: { name: row.name, revokedTokens },
        origin,
      });
      return { id: row.id, deletedAt: new Date(row.deleted_at).toISOString(), revokedTokens };
    });
  }
}

function toDto(row: ProjectRow): ProjectDto {
  return { id: row.id, name: row.name, organizationId: row.organization_id, createdAt: new Date(row.created_at).toISOString() };
}
