import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { keysetPage } from '@app/common';
import {
  type BoundStatement,
  isNotNullViolation,
  isUuid,
  queryReturning,
  readStatement,
  runAtomically,
  statement,
  statementIn,
} from '@app/database';
import type { TaskStatus } from './entities/task.entity';
import { InvalidCursorError } from './tasks.errors';

/** What the capabilities return for a task. */
export interface TaskView {
  id: string;
  projectId: string;
  title: string;
  description: string | null;
  status: TaskStatus;
  createdAt: string;
  updatedAt: string;
}

export interface TaskPage {
  tasks: TaskView[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface TaskChanges {
  title?: string;
  description?: string | null;
  status?: TaskStatus;
}

type WriteOutcome = 'succeeded' | 'not_found';

/** The audit of one write (its target and outcome): recorded in the write's transaction, or sent as a step with it. */
export interface TaskWriteAudit {
  record(em: EntityManager, targetId: string | null, outcome: WriteOutcome): Promise<void>;
  step(targetId: string, outcome: WriteOutcome): BoundStatement;
}

interface TaskRow {
  id: string;
  project_id: string;
  title: string;
  description: string | null;
  status: TaskStatus;
  created_at: Date;
  updated_at: Date;
  /** `created_at` to the microsecond, UTC: the exact position for keyset pagination. */
  position: string;
}

/** The project must still exist: a deleted project's tasks are out of reach (its tokens are revoked anyway). */
const liveProject = (param: string) =>
  `EXISTS (SELECT 1 FROM projects WHERE projects.id = ${param} AND projects.deleted_at IS NULL)`;

const COLUMNS = `id, project_id, title, description, status, created_at, updated_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position`;

/** `get_task`'s read: a named statement, prepared once per connection on PostgreSQL. */
const GET_TASK = statement('tasks.get', `SELECT ${COLUMNS} FROM tasks WHERE id = $1 AND project_id = $2 AND ${liveProject('$2')}`);
/**
 * The writes every agent makes, named and prepared on the connection alike. A new task's id is
 * made here, so its audit event can go with it in the same round trip; a project deleted
 * meanwhile gives the task no project, which its NOT NULL refuses, and the audit event is then
 * not written with it.
 */
const CREATE_TASK = statement(
  'tasks.create',
  `INSERT INTO tasks (id, project_id, title, description, status)
   VALUES ($1, (SELECT id FROM projects WHERE id = $2 AND deleted_at IS NULL), $3, $4, 'todo')
   RETURNING ${COLUMNS}`,
);
const DELETE_TASK = statement('tasks.delete', `DELETE FROM tasks WHERE id = $1 AND project_id = $2 AND ${liveProject('$2')} RETURNING id`);

/**
 * The tasks of exactly one project. It is built from a capability's project context (see
 * `TasksRepository.forProject`) and every statement it runs is filtered by that project's id,
 * so a handler cannot reach another project's rows: it has no way to name one. A task of
 * another project, a missing task and a malformed id all come back as `null`; so does
 * everything once the project is deleted. Each write and its audit event commit together; a
 * write that finds nothing is recorded too, with the outcome `not_found`.
 */
export class ProjectTasks {
  constructor(
    private readonly dataSource: DataSource,
    readonly projectId: string,
    private readonly audit: TaskWriteAudit,
  ) {}

  /** Oldest first (creation order, then id), keyset-paginated with an opaque cursor. */
  async list(options: { status?: TaskStatus; limit: number; cursor?: string }): Promise<TaskPage> {
    const params: unknown[] = [this.projectId];
    let where = `project_id = $1 AND ${liveProject('$1')}`;
    if (options.status) {
      params.push(options.status);
      where += ` AND status = $${params.length}`;
    }
    if (options.cursor !== undefined) {
      const after = decodeCursor(options.cursor);
      params.push(after.position, after.id);
      where += ` AND (created_at, id) > ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
    }
    params.push(options.limit + 1);
    const rows: TaskRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM tasks WHERE ${where} ORDER BY created_at, id LIMIT $${params.length}`,
      params,
    );
    const page = keysetPage(rows, options.limit, encodeCursor);
    return { tasks: page.items.map(toView), nextCursor: page.nextCursor };
  }

  async get(id: string): Promise<TaskView | null> {
    if (!isUuid(id)) return null;
    const rows = await readStatement<TaskRow>(this.dataSource, GET_TASK, [id, this.projectId]);
    return rows[0] ? toView(rows[0]) : null;
  }

  /**
   * The new task, or null when the project has been deleted meanwhile. The task and its audit
   * event are one atomic write of two statements (one round trip on PostgreSQL); when the
   * project is gone, neither is written and the refusal is recorded on its own.
   */
  async create(input: { title: string; description?: string | null }): Promise<TaskView | null> {
    const id = randomUUID();
    try {
      const [created] = await runAtomically(this.dataSource, [
        { statement: CREATE_TASK, parameters: [id, this.projectId, input.title, input.description ?? null] },
        this.audit.step(id, 'succeeded'),
      ]);
      return toView(created![0] as unknown as TaskRow);
    } catch (error) {
      if (!isNotNullViolation(error, 'tasks', 'project_id')) throw error;
      await this.dataSource.transaction((em) => this.audit.record(em, null, 'not_found'));
      return null;
    }
  }

  update(id: string, changes: TaskChanges): Promise<TaskView | null> {
    const params: unknown[] = [id, this.projectId];
    const sets: string[] = ['updated_at = now()'];
    for (const column of ['title', 'description', 'status'] as const) {
      if (changes[column] !== undefined) {
        params.push(changes[column]);
        sets.push(`${column} = $${params.length}`);
      }
    }
    return this.dataSource.transaction(async (em) => {
      const rows = isUuid(id)
        ? await queryReturning<TaskRow>(
            em,
            `UPDATE tasks SET ${sets.join(', ')} WHERE id = $1 AND project_id = $2 AND ${liveProject('$2')} RETURNING ${COLUMNS}`,
            params,
          )
        : [];
      await this.audit.record(em, id, rows[0] ? 'succeeded' : 'not_found');
      return rows[0] ? toView(rows[0]) : null;
    });
  }

  /** True when a task of this project was deleted. */
  delete(id: string): Promise<boolean> {
    return this.dataSource.transaction(async (em) => {
      const rows = isUuid(id)
        ? await statementIn<{ id: string }>(em, DELETE_TASK, [id, this.projectId])
        : [];
      await this.audit.record(em, id, rows.length === 1 ? 'succeeded' : 'not_found');
      return rows.length === 1;
    });
  }
}

function toView(row: TaskRow): TaskView {
  return {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    description: row.description,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const POSITION_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function encodeCursor(row: TaskRow): string {
  return Buffer.from(JSON.stringify([row.position, row.id])).toString('base64url');
}

/**
 * A cursor is the position of the last task of a page. It names no project: the query that
 * uses it is still filtered by this repository's project.
 */
function decodeCursor(cursor: string): { position: string; id: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    !POSITION_RE.test(parsed[0]) ||
    Number.isNaN(Date.parse(parsed[0])) ||
    !isUuid(parsed[1])
  ) {
    throw new InvalidCursorError();
  }
  return { position: parsed[0], id: parsed[1] };
}
