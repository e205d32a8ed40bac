import { DomainError, isUuid, keysetPage } from '@app/common';

/**
 * The cursors of the service-key and derived-token lists: opaque, base64url of the last item's
 * id. The next page is read after that item's `(created_at, id)`, compared in the database, so
 * no precision is lost and items created while paging cause no duplicates or gaps.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(`v1.${lastId}`).toString('base64url');
}

export function decodeCursor(text: string): string {
  const invalid = new DomainError('invalid_cursor', 'cursor is not a cursor this list returned', 'invalid_input');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) throw invalid;
  const [version, id, extra] = Buffer.from(text, 'base64url').toString('utf8').split('.');
  if (version !== 'v1' || extra !== undefined || !isUuid(id)) throw invalid;
  return id!;
}

/** One page of `rows` fetched with `limit + 1`: the items and the cursor of the next page, if any. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  return keysetPage(rows, limit, (last) => encodeCursor(last.id));
}
