import { DomainError } from '@app/common';

/** The refusal of a page link whose cursor no list gave out (400, as the REST lists answer it). */
export function isInvalidCursor(error: unknown): boolean {
  return error instanceof DomainError && error.code === 'invalid_cursor';
}

/**
 * A page's `cursor` query parameter: undefined on the first page, the text otherwise. Sent
 * twice (an array) or empty-but-present is not a cursor any list returned: 400, never a 500.
 */
export function queryCursor(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new DomainError('invalid_cursor', 'This page link is not one the list gave out', 'invalid_input');
  return value;
}
