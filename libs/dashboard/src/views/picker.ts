import { DomainError } from '@app/common';
import { html, SafeHtml, singleParam } from '@app/web';

/** How many matches a picker shows at a time. */
export const PICKER_PAGE_SIZE = 25;
/** The longest search text a picker takes (a project name's limit). */
export const PICKER_QUERY_MAX_LENGTH = 200;

/** A picker's search text and page position, read from the page's address. */
export interface PickerState {
  /** The search text, trimmed ('' for none). */
  query: string;
  /** The position after which the page of matches starts (the list's own cursor), none on the first page. */
  cursor?: string;
}

/**
 * A picker's `…Query` and `…Cursor` query parameters. Sent twice or too long: 400 naming the
 * parameter (the pages' filter shows it), never a 500; a cursor the list did not give out is
 * refused by the list itself.
 */
export function readPicker(query: Record<string, unknown>, names: { query: string; cursor: string }): PickerState {
  const text = singleParam(query, names.query);
  const cursor = singleParam(query, names.cursor);
  if (text.duplicate) throw new DomainError('invalid_query', `${names.query} must be given once`, 'invalid_input');
  if (cursor.duplicate) throw new DomainError('invalid_cursor', `${names.cursor} must be given once`, 'invalid_input');
  const trimmed = (text.value ?? '').trim();
  if (trimmed.length > PICKER_QUERY_MAX_LENGTH) {
    throw new DomainError('invalid_query', `${names.query} must be at most ${PICKER_QUERY_MAX_LENGTH} characters`, 'invalid_input');
  }
  return { query: trimmed, cursor: cursor.value };
}

/**
 * The search half of a picker: a GET form (works without script) whose text field narrows the
 * choices to those whose name (or email) contains it. `keep` are the page's other query
 * parameters, carried as hidden fields so a search loses nothing else.
 */
export function pickerSearch(options: {
  action: string;
  id: string;
  name: string;
  label: string;
  value: string;
  keep?: Record<string, string>;
}): SafeHtml {
  const keep = Object.entries(options.keep ?? {}).filter(([, v]) => v !== '');
  return html`<form method="get" action="${options.action}" role="search" class="picker-search">
${keep.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<label for="${options.id}">${options.label}</label>
<span class="inline"><input type="search" id="${options.id}" name="${options.name}" value="${options.value}" maxlength="${String(PICKER_QUERY_MAX_LENGTH)}">
<button type="submit">Search</button></span>
</form>`;
}

/**
 * Below a picker's choices: how many are shown and the links to the next matches and back to the
 * first ones (`params` carries the search and the page's other parameters).
 */
export function pickerPager(options: {
  basePath: string;
  params: Record<string, string>;
  cursorName: string;
  nextCursor: string | null;
  onFirstPage: boolean;
  what: string;
}): SafeHtml {
  const link = (cursor?: string) => {
    const entries = Object.entries({ ...options.params, ...(cursor ? { [options.cursorName]: cursor } : {}) }).filter(([, v]) => v !== '');
    const query = new URLSearchParams(entries).toString();
    return query ? `${options.basePath}?${query}` : options.basePath;
  };
  if (!options.nextCursor && options.onFirstPage) return html``;
  return html`<p class="hint">${options.nextCursor ? `More ${options.what} match: search by name, or see the next ones.` : ''}</p>
<nav class="pager" aria-label="More ${options.what}">${options.onFirstPage ? '' : html`<a href="${link()}">First matches</a>`}${
    options.nextCursor ? html`<a href="${link(options.nextCursor)}" rel="next">More ${options.what}</a>` : ''
  }</nav>`;
}
