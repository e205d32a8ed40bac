import type { DataSource, EntityManager } from 'typeorm';

/**
 * The rows of an `UPDATE … RETURNING` or `DELETE … RETURNING`. TypeORM's `query()` answers
 * `[rows, rowCount]` for those two commands (and plain rows for everything else); this hides it.
 */
export async function queryReturning<T>(runner: EntityManager | DataSource, sql: string, params: unknown[] = []): Promise<T[]> {
  const result: unknown = await runner.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}
