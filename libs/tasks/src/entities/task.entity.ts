import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const TASK_STATUSES = ['todo', 'in_progress', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TASK_TITLE_MAX = 200;
export const TASK_DESCRIPTION_MAX = 10_000;

/** A task of one project: the data the task capabilities read and change. */
@Index('tasks_project_idx', ['projectId', 'createdAt', 'id'])
@Check('tasks_title_check', 'char_length(title) BETWEEN 1 AND 200')
@Check('tasks_description_check', 'description IS NULL OR char_length(description) <= 10000')
@Check('tasks_status_check', `status IN ('todo', 'in_progress', 'done')`)
@Entity('tasks')
export class Task {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Project', { name: 'tasks_project_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  projectId: string;

  @Column('text')
  title: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column('text', { default: 'todo' })
  status: TaskStatus;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
