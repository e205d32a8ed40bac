import type { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
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
 * Runs `task` every `intervalSeconds` on an unref'd timer (it never keeps the process alive),
 * never two runs at once in this process. `stop()` clears the timer and waits for a run in
 * progress, so the database is not closed under it. An interval of 0 never runs.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly intervalSeconds: number,
    private readonly task: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.intervalSeconds <= 0 || this.timer) return;
    this.timer = setInterval(() => this.tick(), this.intervalSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.task()
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.warn(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`);
        },
      )
      .finally(() => {
        this.running = undefined;
      });
  }
}
