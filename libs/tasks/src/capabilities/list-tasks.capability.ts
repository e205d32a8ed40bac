import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Capability, CapabilityDefinition, ProjectContext } from '@app/capabilities';
import { TasksRepository } from '../tasks.repository';
import { taskOutput, taskStatus } from './task-fields';

export const LIST_TASKS_DEFAULT_LIMIT = 20;
export const LIST_TASKS_MAX_LIMIT = 100;

const inputSchema = z
  .object({
    status: taskStatus().optional().describe('Only tasks with this status. Omit for all.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(LIST_TASKS_MAX_LIMIT)
      .optional()
      .describe(`Tasks per page, 1–${LIST_TASKS_MAX_LIMIT}; default ${LIST_TASKS_DEFAULT_LIMIT}.`),
    cursor: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('The nextCursor of the previous page, to continue; omit for the first page.'),
  })
  .strict();

const outputSchema = z.object({
  tasks: z.array(taskOutput),
  nextCursor: z.string().nullable().describe('Pass as cursor to get the next page; null on the last page.'),
});

@Capability()
@Injectable()
export class ListTasksCapability implements CapabilityDefinition<typeof inputSchema> {
  readonly name = 'list_tasks';
  readonly title = 'List tasks';
  readonly description =
    'Lists the tasks of the project this token is bound to, oldest first, optionally only those with one status. ' +
    'Returns {tasks, nextCursor}; when nextCursor is not null, call again with cursor=nextCursor for the next page.';
  readonly permission = 'tasks:read' as const;
  readonly inputSchema = inputSchema;
  readonly outputSchema = outputSchema;
  readonly risk = 'read' as const;

  constructor(private readonly tasks: TasksRepository) {}

  async handle(args: z.infer<typeof inputSchema>, context: ProjectContext) {
    const page = await this.tasks.forProject(context, this.name).list({
      status: args.status,
      limit: args.limit ?? LIST_TASKS_DEFAULT_LIMIT,
      cursor: args.cursor,
    });
    return { tasks: page.tasks, nextCursor: page.nextCursor };
  }
}
