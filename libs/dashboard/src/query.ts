import { InvalidCursorError } from '@app/common';

/**
 * A page's `cursor` query parameter: undefined on the first page, the text otherwise. Sent
 * twice (an array) or empty-but-present is not a cursor any list returned: 400, never a 500.
 */
export function queryCursor(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new InvalidCursorError();
  return value;
}
