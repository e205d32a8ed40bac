import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ProjectContext } from '@app/capabilities';
import { ProjectTasks } from './project-tasks';

/**
 * The only way to reach tasks: from a capability's project context, never from a project id a
 * caller supplied. What it hands out is bound to the context's project.
 */
@Injectable()
export class TasksRepository {
  constructor(private readonly dataSource: DataSource) {}

  forProject(context: ProjectContext): ProjectTasks {
    return new ProjectTasks(this.dataSource, context.projectId);
  }
}
