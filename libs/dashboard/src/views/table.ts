import { html, SafeHtml } from '@app/web';

/**
 * A list's table: a caption naming it for screen readers, one column header per entry (`false` or
 * `undefined` leaves a column out) and the rows.
 */
export function dataTable(caption: string, headers: readonly (string | SafeHtml | false | undefined)[], rows: readonly SafeHtml[]): SafeHtml {
  return html`<div class="table-wrap"><table>
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${headers.filter((h) => h !== false && h !== undefined).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

/** The column header of a row's actions, named only for screen readers. */
export const ACTIONS_HEADER = html`<span class="visually-hidden">Actions</span>`;

/** What an empty list says: that it is empty, and what to do next. */
export function emptyState(title: string, next: string | SafeHtml): SafeHtml {
  return html`<div class="empty"><p><strong>${title}</strong> ${next}</p></div>`;
}
