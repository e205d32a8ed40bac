import { DomainError } from './domain-error';
import { isUuid } from './uuid';

/**
 * A position in a keyset-paginated list: the sort value of the last row of a page (a whole
 * number, such as milliseconds since the epoch) and its id, which breaks ties. Opaque to
 * callers: base64url of `<position>.<id>`.
 */
export interface KeysetPosition {
  position: string;
  id: string;
}

export class InvalidCursorError extends DomainError {
  constructor() {
    super('invalid_cursor', 'cursor is not a cursor this list returned', 'invalid_input');
  }
}

export function encodeKeysetCursor(at: KeysetPosition): string {
  return Buffer.from(`${at.position}.${at.id}`).toString('base64url');
}

/** The position a cursor names; `InvalidCursorError` for anything a list did not return. */
export function decodeKeysetCursor(text: string): KeysetPosition {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) throw new InvalidCursorError();
  const [position, id, extra] = Buffer.from(text, 'base64url').toString('utf8').split('.');
  if (extra !== undefined || !position || !/^\d{1,19}$/.test(position) || !isUuid(id)) throw new InvalidCursorError();
  return { position, id };
}

/** A page of a keyset list: asks for one row more than `limit` to know whether another page follows. */
export function keysetPage<T>(rows: T[], limit: number, positionOf: (row: T) => KeysetPosition): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeKeysetCursor(positionOf(last)) : null };
}
