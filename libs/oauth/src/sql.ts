import type { EntityManager } from 'typeorm';

/**
 * Rows of an `UPDATE … RETURNING` or `DELETE … RETURNING`. TypeORM's PostgreSQL driver answers
 * those two commands as `[rows, affectedCount]` (other commands as plain rows), so conditional
 * updates read their rows through here.
 */
export async function modifyReturning<T>(em: Pick<EntityManager, 'query'>, sql: string, params: unknown[]): Promise<T[]> {
  const [rows] = (await em.query(sql, params)) as [T[], number];
  return rows;
}
