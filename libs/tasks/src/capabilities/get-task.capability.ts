import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Capability, CapabilityDefinition, ProjectContext } from '@app/capabilities';
import { TaskNotFoundError } from '../tasks.errors';
import { TasksRepository } from '../tasks.repository';
import { oneTaskOutput, taskId } from './task-fields';

const inputSchema = z.object({ id: taskId() }).strict();

@Capability()
@Injectable()
export class GetTaskCapability implements CapabilityDefinition<typeof inputSchema> {
  readonly name = 'get_task';
  readonly title = 'Get a task';
  readonly description =
    'Reads one task of the project this token is bound to: title, description, status and timestamps. ' +
    'An id that is not a task of this project is reported as not found.';
  readonly permission = 'tasks:read' as const;
  readonly inputSchema = inputSchema;
  readonly outputSchema = oneTaskOutput;
  readonly risk = 'read' as const;

  constructor(private readonly tasks: TasksRepository) {}

  async handle(args: z.infer<typeof inputSchema>, context: ProjectContext) {
    const task = await this.tasks.forProject(context, this.name).get(args.id);
    if (!task) throw new TaskNotFoundError();
    return { task };
  }
}
