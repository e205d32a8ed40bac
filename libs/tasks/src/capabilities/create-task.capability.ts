import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/common';
import { z } from 'zod';
import { Capability, CapabilityDefinition, ProjectContext } from '@app/capabilities';
import { TasksRepository } from '../tasks.repository';
import { oneTaskOutput, taskDescription, taskTitle } from './task-fields';

const inputSchema = z
  .object({
    title: taskTitle(),
    description: taskDescription().optional(),
  })
  .strict();

@Capability()
@Injectable()
export class CreateTaskCapability implements CapabilityDefinition<typeof inputSchema> {
  readonly name = 'create_task';
  readonly title = 'Create a task';
  readonly description =
    'Creates a task in the project this token is bound to, with status todo. Returns the new task, including its id.';
  readonly permission = 'tasks:write' as const;
  readonly inputSchema = inputSchema;
  readonly outputSchema = oneTaskOutput;
  readonly risk = 'write' as const;
  readonly annotations = { idempotentHint: false };

  constructor(private readonly tasks: TasksRepository) {}

  async handle(args: z.infer<typeof inputSchema>, context: ProjectContext) {
    const task = await this.tasks.forProject(context, this.name).create(args);
    if (!task) throw new NotFoundError('Project');
    return { task };
  }
}
