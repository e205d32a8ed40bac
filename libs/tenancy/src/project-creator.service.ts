import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { hasUnsafeDisplayCharacters } from '@app/common';
import { ProjectDirectory, ProjectRecord } from './project-directory.service';

/** The longest project name (characters, after trimming). */
export const PROJECT_NAME_MAX_LENGTH = 200;

/** What is wrong with a project name as typed (before trimming), or null when it will do. */
export function projectNameProblem(name: string): 'empty' | 'too_long' | 'unsafe' | null {
  const trimmed = name.trim();
  if (!trimmed) return 'empty';
  if (trimmed.length > PROJECT_NAME_MAX_LENGTH) return 'too_long';
  return hasUnsafeDisplayCharacters(trimmed) ? 'unsafe' : null;
}

/**
 * Creating a project, wherever it happens (the REST route and the dashboard through
 * `ProjectsService`, the consent page when a person approves a client into a new project):
 * the row and its `project.created` event, both in the caller's transaction.
 */
@Injectable()
export class ProjectCreator {
  constructor(
    private readonly projects: ProjectDirectory,
    private readonly audit: AuditService,
  ) {}

  /** The name must already be valid (`projectNameProblem`); it is stored trimmed. */
  async create(em: EntityManager, organizationId: string, name: string, actor: AuditActor): Promise<ProjectRecord> {
    const project = await this.projects.create(organizationId, name.trim(), em);
    await this.audit.record(em, {
      organizationId,
      projectId: project.id,
      ...actor,
      action: 'project.created',
      targetType: 'project',
      targetId: project.id,
      metadata: { name: project.name },
    });
    return project;
  }
}
