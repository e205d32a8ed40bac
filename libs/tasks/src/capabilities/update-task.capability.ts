import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Capability, CapabilityDefinition, ProjectContext } from '@app/capabilities';
import { TaskNotFoundError } from '../tasks.errors';
import { TasksRepository } from '../tasks.repository';
import { oneTaskOutput, taskDescription, taskId, taskStatus, taskTitle } from './task-fields';

const inputSchema = z
  .object({
    id: taskId(),
    title: taskTitle().optional(),
    description: taskDescription().nullable().optional().describe('New description; null clears it.'),
    status: taskStatus().optional(),
  })
  .strict()
  .refine((args) => args.title !== undefined || args.description !== undefined || args.status !== undefined, {
    message: 'Give at least one of title, description or status to change',
  });

@Capability()
@Injectable()
export class UpdateTaskCapability implements CapabilityDefinition<typeof inputSchema> {
  readonly name = 'update_task';
  readonly title = 'Update a task';
  readonly description =
    'Changes the title, description and/or status (todo, in_progress, done) of one task of the project this token ' +
    'is bound to; fields left out keep their value, and at least one must be given. Returns the updated task.';
  readonly permission = 'tasks:write' as const;
  readonly inputSchema = inputSchema;
  readonly outputSchema = oneTaskOutput;
  readonly risk = 'write' as const;
  readonly annotations = { idempotentHint: true };

  constructor(private readonly tasks: TasksRepository) {}

  async handle(args: z.infer<typeof inputSchema>, context: ProjectContext) {
    const { id, ...changes } = args;
    const task = await this.tasks.forProject(context, this.name).update(id, changes);
    if (!task) throw new TaskNotFoundError();
    return { task };
  }

  async describeTarget(args: z.infer<typeof inputSchema>, context: ProjectContext): Promise<string | null> {
    const task = await this.tasks.forProject(context, this.name).get(args.id);
    return task ? `The task "${task.title}", now ${task.status}` : 'No task of this project has this id';
  }
}
