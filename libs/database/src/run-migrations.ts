import { DataSource, Migration, MigrationExecutor } from 'typeorm';

/** The advisory lock key every instance migrates under (any fixed bigint, unique to this service). */
export const MIGRATION_LOCK_KEY = '7148112903';

/**
 * Runs the pending migrations, each in its own transaction, under a session advisory lock held
 * on the same connection, so instances starting at once on an empty PostgreSQL database take
 * turns: the first migrates, the others wait, then find nothing left to do. On the embedded
 * database (one owner process, held by its data-folder lock; one shared session) the lock is
 * simply uncontended. Needs one connection only. Answers the migrations applied by this call.
 */
export async function runMigrations(dataSource: DataSource): Promise<Migration[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'each';
      return await executor.executePendingMigrations();
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}
