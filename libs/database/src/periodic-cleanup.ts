import { Injectable, type Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { queryAffected } from './query-returning';

export interface BatchedDeleteOptions {
  /** Rows per statement (each statement is its own short transaction). */
  batchSize?: number;
  /** Statements per call at most, so one run never holds the database for long. */
  maxBatches?: number;
}

/**
 * Deletes the rows of `table` matching `where`, `batchSize` rows per statement, until fewer
 * than a batch match or `maxBatches` statements ran; answers how many rows went. Rows another
 * instance is deleting at the same moment are skipped (`FOR UPDATE SKIP LOCKED`), so any number
 * of instances may run the same cleanup at once without waiting on each other or failing.
 * `table`, `keyColumn` and `where` are trusted SQL written in code; values go in `params`.
 */
export async function deleteInBatches(
  dataSource: DataSource,
  table: string,
  keyColumn: string,
  where: string,
  params: unknown[] = [],
  options: BatchedDeleteOptions = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  const maxBatches = options.maxBatches ?? 50;
  let deleted = 0;
  for (let i = 0; i < maxBatches; i++) {
    const count = await queryAffected(
      dataSource,
      `DELETE FROM ${table} WHERE ${keyColumn} IN (
         SELECT ${keyColumn} FROM ${table} WHERE ${where} LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)`,
      params,
    );
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}

/**
 * The periodic cleanups of the process, on `@nestjs/schedule`: each is a named interval in its
 * `SchedulerRegistry`, every CLEANUP_INTERVAL_SECONDS (0: never), on an unref'd timer (it never
 * keeps the process alive), never two runs of one cleanup at once in this process. On shutdown
 * the intervals go and a run in progress is awaited, so the database is not closed under it.
 * Without `ScheduleModule` in the application (the command line) nothing is scheduled.
 */
@Injectable()
export class CleanupScheduler implements OnModuleDestroy {
  private readonly names = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly config: AppConfig,
    @Optional() private readonly registry?: SchedulerRegistry,
  ) {}

  /** Runs `task` every CLEANUP_INTERVAL_SECONDS under `name`; a failed run is logged and the next one tried. */
  every(name: string, task: () => Promise<unknown>, logger: Logger): void {
    const seconds = this.config.cleanupIntervalSeconds;
    if (!this.registry || seconds <= 0 || this.names.has(name)) return;
    const timer = setInterval(() => this.tick(name, task, logger), seconds * 1000);
    timer.unref();
    this.registry.addInterval(name, timer);
    this.names.add(name);
  }

  async onModuleDestroy(): Promise<void> {
    for (const name of this.names) {
      if (this.registry?.doesExist('interval', name)) this.registry.deleteInterval(name);
    }
    this.names.clear();
    await Promise.all(this.running.values());
  }

  private tick(name: string, task: () => Promise<unknown>, logger: Logger): void {
    if (this.running.has(name)) return;
    const run = task()
      .then(
        () => undefined,
        (error: unknown) => {
          logger.warn(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`);
        },
      )
      .finally(() => this.running.delete(name));
    this.running.set(name, run);
  }
}
