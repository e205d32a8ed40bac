import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService } from '@app/audit';
import type { ProjectContext } from '@app/capabilities';
import { ProjectTasks, type TaskWriteAudit } from './project-tasks.repository';

/**
 * The only way to reach tasks: from a capability's project context, never from a project id a
 * caller supplied. What it hands out is bound to the context's project, and records each write
 * of the named capability (`tool`) in the audit trail, in the write's transaction.
 */
@Injectable()
export class TasksRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  forProject(context: ProjectContext, tool: string): ProjectTasks {
    const write = (targetId: string | null, outcome: string) => ({
      organizationId: context.organizationId,
      projectId: context.projectId,
      credential: context.credential,
      tool,
      targetType: 'task',
      targetId,
      outcome,
    });
    const audit: TaskWriteAudit = {
      record: (em: EntityManager, targetId, outcome) => this.audit.recordAgentWrite(em, write(targetId, outcome)),
      step: (targetId, outcome) => this.audit.agentWriteStep(write(targetId, outcome)),
    };
    return new ProjectTasks(this.dataSource, context.projectId, audit);
  }
}
