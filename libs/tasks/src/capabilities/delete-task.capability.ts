import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Capability, CapabilityDefinition, ProjectContext } from '@app/capabilities';
import { TaskNotFoundError } from '../tasks.errors';
import { TasksRepository } from '../tasks.repository';
import { taskId } from './task-fields';

const inputSchema = z.object({ id: taskId() }).strict();

const outputSchema = z.object({ deleted: z.literal(true), id: z.string() });

@Capability()
@Injectable()
export class DeleteTaskCapability implements CapabilityDefinition<typeof inputSchema> {
  readonly name = 'delete_task';
  readonly title = 'Delete a task';
  readonly description =
    'Deletes one task of the project this token is bound to, permanently. An id that is not a task of this project ' +
    'is reported as not found.';
  readonly permission = 'tasks:delete' as const;
  readonly inputSchema = inputSchema;
  readonly outputSchema = outputSchema;
  readonly risk = 'destructive' as const;
  readonly annotations = { idempotentHint: false };

  constructor(private readonly tasks: TasksRepository) {}

  async handle(args: z.infer<typeof inputSchema>, context: ProjectContext) {
    if (!(await this.tasks.forProject(context, this.name).delete(args.id))) throw new TaskNotFoundError();
    return { deleted: true as const, id: args.id };
  }

  async describeTarget(args: z.infer<typeof inputSchema>, context: ProjectContext): Promise<string | null> {
    const task = await this.tasks.forProject(context, this.name).get(args.id);
    return task ? `The task "${task.title}", now ${task.status}` : 'No task of this project has this id';
  }
}
