/**
 * One page of a keyset-paginated list. The query asks for `limit + 1` rows: the extra row only
 * says that more follow, and the next page starts after the position of this page's last row
 * (`cursorOf`, an opaque cursor the list decodes again).
 */
export function keysetPage<R>(rows: readonly R[], limit: number, cursorOf: (last: R) => string): { items: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page, nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}
