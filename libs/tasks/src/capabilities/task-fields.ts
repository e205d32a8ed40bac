import { z } from 'zod';
import { hasUnsafeDisplayCharacters } from '@app/common';
import { TASK_DESCRIPTION_MAX, TASK_STATUSES, TASK_TITLE_MAX } from '../entities/task.entity';

/** PostgreSQL text cannot hold U+0000; refusing it here keeps bad input a validation error. */
const noNul = (s: string) => !s.includes('\u0000');

export const taskId = () =>
  z.string().describe('The task id, as returned by list_tasks or create_task.');

export const taskTitle = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(TASK_TITLE_MAX)
    .refine((s) => !hasUnsafeDisplayCharacters(s), 'must not contain control characters or bidirectional formatting characters')
    .describe(`Short title, 1–${TASK_TITLE_MAX} characters.`);

export const taskDescription = () =>
  z
    .string()
    .max(TASK_DESCRIPTION_MAX)
    .refine(noNul, 'must not contain NUL characters')
    .describe(`Longer free text, at most ${TASK_DESCRIPTION_MAX.toLocaleString('en')} characters.`);

export const taskStatus = () =>
  z.enum(TASK_STATUSES).describe('todo (not started), in_progress (being worked on) or done.');

/** A task as the capabilities return it (advertised as part of each tool's output schema). */
export const taskOutput = z.object({
  id: z.string(),
  projectId: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(TASK_STATUSES),
  createdAt: z.string().describe('ISO 8601'),
  updatedAt: z.string().describe('ISO 8601'),
});

export const oneTaskOutput = z.object({ task: taskOutput });
