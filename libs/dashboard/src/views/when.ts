import { DomainError } from '@app/common';
import { html, SafeHtml, singleParam } from '@app/web';

/** A time as the lists show it: `2026-11-23 14:05 UTC` in a `<time>` element; `empty` when there is none. */
export function when(value: Date | string | null | undefined, empty = 'Never'): SafeHtml {
  if (value === null || value === undefined) return html`<span class="muted">${empty}</span>`;
  const iso = new Date(value).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

/** The `cursor` of a list page's query (absent on the first page); one sent twice is a 400. */
export function cursorParam(query: Record<string, unknown> | undefined): string | undefined {
  const cursor = singleParam(query, 'cursor');
  if (cursor.duplicate) throw new DomainError('invalid_cursor', 'cursor was sent more than once', 'invalid_input');
  return cursor.value;
}

/** The notice a `?done=<keyword>` maps to (only fixed texts: nothing of the URL is shown). */
export function noticeOf(notices: Record<string, string>, query: Record<string, unknown> | undefined): string | undefined {
  const done = singleParam(query, 'done').value;
  return done !== undefined && Object.hasOwn(notices, done) ? notices[done] : undefined;
}
