import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { CredentialRevoker } from '@app/credentials';
import { ProjectDirectory, ProjectRecord } from '@app/tenancy';
import type { DeletedProjectDto, ProjectDto } from './dto/project.dto';
import { ProjectNotFoundError } from './organizations.errors';

/** An organisation's projects. Deleted projects (soft-deleted) are invisible everywhere. */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly revocation: CredentialRevoker,
    private readonly projects: ProjectDirectory,
  ) {}

  async list(organizationId: string): Promise<ProjectDto[]> {
    return (await this.projects.list(organizationId)).map(toDto);
  }

  async get(organizationId: string, projectId: string): Promise<ProjectDto> {
    const project = await this.projects.find(organizationId, projectId);
    if (!project) throw new ProjectNotFoundError();
    return toDto(project);
  }

  async create(organizationId: string, input: { name: string }, actor: AuditActor): Promise<ProjectDto> {
    return this.dataSource.transaction(async (em) => {
      const project = await this.projects.create(organizationId, input.name, em);
      await this.audit.record(em, {
        organizationId,
        projectId: project.id,
        ...actor,
        action: 'project.created',
        targetType: 'project',
        targetId: project.id,
        metadata: { name: project.name },
      });
      return toDto(project);
    });
  }

  /**
   * Soft-deletes the project and, in the same transaction, revokes every agent token bound to
   * it, so the next MCP request with one of them is refused. A deleted project is "not found".
   */
  async delete(organizationId: string, projectId: string, actor: AuditActor): Promise<DeletedProjectDto> {
    return this.dataSource.transaction(async (em) => {
      const deleted = await this.projects.softDelete(organizationId, projectId, em);
      if (!deleted) throw new ProjectNotFoundError();
      const { revokedTokens } = await this.revocation.revokeProjectAccess(em, projectId, actor);
      await this.audit.record(em, {
        organizationId,
        projectId,
        ...actor,
        action: 'project.deleted',
        targetType: 'project',
        targetId: projectId,
        metadata: { name: deleted.name, revokedTokens },
      });
      return { id: deleted.id, deletedAt: deleted.deletedAt.toISOString(), revokedTokens };
    });
  }
}

function toDto(project: ProjectRecord): ProjectDto {
  return { id: project.id, name: project.name, organizationId: project.organizationId, createdAt: project.createdAt.toISOString() };
}
