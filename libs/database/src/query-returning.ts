import type { DataSource, EntityManager } from 'typeorm';

/**
 * TypeORM's `query()` answers `[rows, rowCount]` for `UPDATE` and `DELETE` (with or without
 * `RETURNING`) and plain rows for everything else. These two helpers are the one place that
 * knows it: every conditional `UPDATE … RETURNING` / `DELETE … RETURNING` goes through
 * `queryReturning`, every count of changed rows through `queryAffected`.
 */
function splitResult(result: unknown): { rows: unknown[]; affected: number | undefined } {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return { rows: result[0] as unknown[], affected: result[1] };
  }
  return { rows: Array.isArray(result) ? result : [], affected: undefined };
}

/** The rows of an `UPDATE … RETURNING` or `DELETE … RETURNING` (or of any other statement). */
export async function queryReturning<T>(runner: EntityManager | DataSource, sql: string, params: unknown[] = []): Promise<T[]> {
  return splitResult(await runner.query(sql, params)).rows as T[];
}

/** How many rows an `UPDATE` or `DELETE` changed. */
export async function queryAffected(runner: EntityManager | DataSource, sql: string, params: unknown[] = []): Promise<number> {
  const { rows, affected } = splitResult(await runner.query(sql, params));
  return affected ?? rows.length;
}
