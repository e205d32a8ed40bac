/** `created_at` within [from, to), each bound when given, as SQL conditions on `params` (which it extends). */
export function timeRangeSql(params: unknown[], range: { from?: Date; to?: Date }): string {
  let where = '';
  if (range.from) {
    params.push(range.from);
    where += ` AND created_at >= $${params.length}`;
  }
  if (range.to) {
    params.push(range.to);
    where += ` AND created_at < $${params.length}`;
  }
  return where;
}
