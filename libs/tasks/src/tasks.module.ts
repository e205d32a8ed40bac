import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreateTaskCapability } from './capabilities/create-task.capability';
import { DeleteTaskCapability } from './capabilities/delete-task.capability';
import { GetTaskCapability } from './capabilities/get-task.capability';
import { ListTasksCapability } from './capabilities/list-tasks.capability';
import { UpdateTaskCapability } from './capabilities/update-task.capability';
import { Task } from './entities/task.entity';
import { TasksRepository } from './tasks.repository';

/** The task capabilities; the MCP capability registry discovers them by their `@Capability()` mark. */
export const TASK_CAPABILITIES = [
  ListTasksCapability,
  GetTaskCapability,
  CreateTaskCapability,
  UpdateTaskCapability,
  DeleteTaskCapability,
];

@Module({
  imports: [TypeOrmModule.forFeature([Task])],
  providers: [TasksRepository, ...TASK_CAPABILITIES],
  exports: [TasksRepository],
})
export class TasksModule {}
