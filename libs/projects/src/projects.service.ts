import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { DomainError, isUuid } from '@app/common';
import { CredentialRevoker } from '@app/credential-store';
import { ProjectCreator, ProjectDirectory, ProjectRecord } from '@app/tenancy';
import type { DeletedProjectDto, ProjectDeletionImpact, ProjectDto, ProjectListDto } from './dto/project.dto';
import { ProjectNotFoundError } from './projects.errors';

export const PROJECT_PAGE_DEFAULT = 50;

/** An organisation's projects. Deleted projects (soft-deleted) are invisible everywhere. */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly revocation: CredentialRevoker,
    private readonly projects: ProjectDirectory,
    private readonly creator: ProjectCreator,
  ) {}

  /**
   * One page of the live projects, oldest first, keyset-paginated by an opaque cursor; with
   * `query`, only those whose name contains it, in any case (the pages' project pickers).
   */
  async page(organizationId: string, options: { limit?: number; cursor?: string; query?: string } = {}): Promise<ProjectListDto> {
    const limit = options.limit ?? PROJECT_PAGE_DEFAULT;
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const rows = await this.projects.page(organizationId, limit + 1, after, options.query?.trim() || undefined);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toDto),
      nextCursor: rows.length > limit && last ? Buffer.from(`${last.createdUs}.${last.id}`).toString('base64url') : null,
    };
  }

  /** The names of these of the organisation's live projects, by id (another organisation's, a deleted one or a non-id is absent). */
  async namesOf(organizationId: string, projectIds: readonly string[]): Promise<Map<string, string>> {
    const found = await this.projects.namesOf(projectIds);
    return new Map([...found.values()].filter((p) => p.organization.id === organizationId).map((p) => [p.id, p.name]));
  }

  async get(organizationId: string, projectId: string): Promise<ProjectDto> {
    const project = await this.projects.find(organizationId, projectId);
    if (!project) throw new ProjectNotFoundError();
    return toDto(project);
  }

  async create(organizationId: string, input: { name: string }, actor: AuditActor): Promise<ProjectDto> {
    return this.dataSource.transaction(async (em) => toDto(await this.creator.create(em, organizationId, input.name, actor)));
  }

  /** Renames the project (`project.renamed`, with the former and the new name; nothing when the name is unchanged). */
  async rename(organizationId: string, projectId: string, input: { name: string }, actor: AuditActor): Promise<ProjectDto> {
    return this.dataSource.transaction(async (em) => {
      const renamed = await this.projects.rename(organizationId, projectId, input.name.trim(), em);
      if (!renamed) throw new ProjectNotFoundError();
      const { project, previousName } = renamed;
      if (project.name !== previousName) {
        await this.audit.record(em, {
          organizationId,
          projectId,
          ...actor,
          action: 'project.renamed',
          targetType: 'project',
          targetId: projectId,
          metadata: { previousName, name: project.name },
        });
      }
      return toDto(project);
    });
  }

  /** What deleting the project would end now: its derived project tokens and connected clients. */
  async deletionImpact(organizationId: string, projectId: string): Promise<ProjectDeletionImpact> {
    const project = await this.get(organizationId, projectId);
    return { project, ...(await this.revocation.projectAccess(project.id)) };
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

/** A cursor is the (microseconds, id) position of a page's last project. */
function decodeCursor(text: string): { us: string; id: string } {
  const invalid = new DomainError('invalid_cursor', 'cursor is not a cursor this list returned', 'invalid_input');
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw invalid;
  const [us, id, extra] = Buffer.from(text, 'base64url').toString('utf8').split('.');
  if (extra !== undefined || !us || !/^\d{1,19}$/.test(us) || !isUuid(id)) throw invalid;
  return { us, id };
}
