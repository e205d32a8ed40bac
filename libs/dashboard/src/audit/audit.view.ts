import type { AuditEventDto } from '@app/audit';
import type { ProjectDto } from '@app/projects';
import type { Member } from '@app/people';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { dashboardPage, pager, sectionPath } from '../views/layout';
import { PICKER_QUERY_MAX_LENGTH, pickerPager } from '../views/picker';
import { dataTable, emptyState } from '../views/table';
import { ACTION_GROUPS, actionWords, actorWords, AuditNames, shortUserAgent } from './audit-words';

export interface AuditFilters {
  /** An action, a family (`capability.*`) or '' for every kind. */
  action: string;
  /** A member's user id, or '' for everyone. */
  person: string;
  /** The other filters as typed ('' when unset): a project id, a client id, a tool, a decision, a time range (UTC). */
  project?: string;
  client?: string;
  tool?: string;
  decision?: string;
  from?: string;
  to?: string;
}

const DECISIONS: [string, string][] = [
  ['allowed', 'Allowed'],
  ['denied', 'Denied by policy'],
  ['approval_required', 'Approval required'],
  ['approved_run', 'Approved and run'],
  ['refused', 'Refused requests (401, 403, 429)'],
];
const MORE = ['project', 'client', 'tool', 'decision', 'from', 'to'] as const;

export interface AuditView {
  filters: AuditFilters;
  /** The "Person" choices: one page of the members whose name or email contains the search (and the chosen one). */
  members: Member[];
  /** The "Project" choices. */
  projects?: ProjectDto[];
  /** The person picker's search text, its next page and whether this is its first. */
  people: { query: string; nextCursor: string | null; onFirstPage: boolean };
  /** Undefined when the filters were refused (the page shows their errors instead). */
  events?: AuditEventDto[];
  names?: AuditNames;
  nextCursor: string | null;
  onFirstPage: boolean;
  errors: { action?: string; person?: string; projectId?: string; client?: string; tool?: string; decision?: string; from?: string; to?: string };
  /** A refusal of the page link itself (a cursor no list returned). */
  alert?: string;
}

/** The audit log: newest first, filtered by kind of event and by person, a page at a time. */
export function auditPage(ctx: DashboardContext, view: AuditView): HtmlPage {
  const base = sectionPath(ctx.organization!.id, 'audit');
  const filtered = view.filters.action !== '' || view.filters.person !== '' || MORE.some((k) => view.filters[k]);
  const kept: Record<string, string> = {};
  if (view.filters.action) kept.action = view.filters.action;
  if (view.filters.person) kept.person = view.filters.person;
  for (const k of MORE) if (view.filters[k]) kept[k] = view.filters[k] as string;
  if (view.people.query) kept.personQuery = view.people.query;
  return dashboardPage(ctx, {
    title: 'Audit log',
    section: 'audit',
    body: html`<h1>Audit log</h1>
<p><a href="${base}/sinks">Audit sinks</a>: where this log is delivered (your SIEM).</p>
${view.alert ? html`<div class="error" role="alert">${view.alert}</div>` : ''}
${filterForm(base, view, filtered)}
${exportForm(base, view.filters)}
${view.events === undefined ? '' : eventsTable(ctx, view.events, view.names!, filtered, view.onFirstPage, base)}
${view.events === undefined ? '' : pager(base, view.nextCursor, view.onFirstPage, kept)}`,
  });
}

function filterForm(base: string, view: AuditView, filtered: boolean): SafeHtml {
  const { errors, filters } = view;
  return html`<form method="get" action="${base}" class="card" aria-labelledby="filters-heading">
<h2 id="filters-heading">Filters</h2>
<label for="audit-action">Kind of event</label>
${errors.action ? html`<p class="field-error" id="audit-action-error">${errors.action}</p>` : ''}
<select id="audit-action" name="action"${errors.action ? html` aria-invalid="true" aria-describedby="audit-action-error"` : ''}>
<option value="">All events</option>
${ACTION_GROUPS.map(
  (g) => html`<optgroup label="${g.label}">${g.actions.map(
    (a) => html`<option value="${a.value}"${a.value === filters.action ? html` selected` : ''}>${a.label}</option>`,
  )}</optgroup>`,
)}
</select>
<label for="audit-person-query">Search people by name or email</label>
<span class="inline"><input type="search" id="audit-person-query" name="personQuery" value="${view.people.query}" maxlength="${String(PICKER_QUERY_MAX_LENGTH)}">
<button type="submit">Search</button></span>
<label for="audit-person">Person</label>
<p class="hint" id="audit-person-hint">What the person did, and what was done to them (their role, their invitation, their reset links).${
    view.people.query ? ` Offered: the members whose name or email contains “${view.people.query}”.` : ''
  }</p>
${errors.person ? html`<p class="field-error" id="audit-person-error">${errors.person}</p>` : ''}
<select id="audit-person" name="person" aria-describedby="${errors.person ? 'audit-person-error audit-person-hint' : 'audit-person-hint'}"${errors.person ? html` aria-invalid="true"` : ''}>
<option value="">Everyone</option>
${view.members.map((m) => html`<option value="${m.userId}"${m.userId === filters.person ? html` selected` : ''}>${m.name} (${m.email})</option>`)}
</select>
${pickerPager({
  basePath: base,
  params: { action: filters.action, person: filters.person, personQuery: view.people.query, ...Object.fromEntries(MORE.map((k) => [k, filters[k] ?? ''])) },
  cursorName: 'personCursor',
  nextCursor: view.people.nextCursor,
  onFirstPage: view.people.onFirstPage,
  what: 'people',
})}
${moreFilters(view)}
<div class="actions"><button type="submit" class="primary">Show events</button></div>
${filtered ? html`<p><a href="${base}">Clear the filters</a></p>` : ''}
</form>`;
}

function eventsTable(ctx: DashboardContext, events: AuditEventDto[], names: AuditNames, filtered: boolean, onFirstPage: boolean, base: string): SafeHtml {
  if (events.length === 0) {
    const text = !onFirstPage
      ? html`No more events. <a href="${base}">Back to the newest</a>.`
      : filtered
        ? html`No events match these filters. <a href="${base}">Clear the filters</a> to see every event.`
        : 'Nothing has happened in this organisation yet. What people, keys and AI clients do here (projects created, keys issued, clients connected, members invited) appears in this log.';
    return emptyState('No events.', text);
  }
  return dataTable(
    `Audit events of ${ctx.organization!.name}, newest first`,
    ['When', 'Who', 'What', 'From where'],
    events.map((e) => eventRow(e, names)),
  );
}

function eventRow(event: AuditEventDto, names: AuditNames): SafeHtml {
  const actor = actorWords(event, names);
  const agent = shortUserAgent(event.userAgent);
  return html`<tr>
<td><time datetime="${event.createdAt}">${event.createdAt.slice(0, 19).replace('T', ' ')} UTC</time></td>
<td>${actor.who}${actor.detail ? html`<br><span class="muted">${actor.detail}</span>` : ''}</td>
<td>${actionWords(event, names)}</td>
<td>${event.ip ?? ''}${agent ? html`<br><span class="muted" title="${event.userAgent}">${agent}</span>` : ''}${!event.ip && !agent ? html`<span class="muted">Not recorded</span>` : ''}</td>
</tr>`;
}

function fieldError(id: string, message: string | undefined): SafeHtml | string {
  return message ? html`<p class="field-error" id="${id}-error">${message}</p>` : '';
}

/** Project, AI client, tool, decision and time range (SPEC §10: who did what, where, allowed or not, when). */
function moreFilters(view: AuditView): SafeHtml {
  const { filters: f, errors } = view;
  const invalid = (id: string, message: string | undefined) => (message ? html` aria-invalid="true" aria-describedby="${id}-error"` : '');
  return html`<label for="audit-project">Project</label>
${fieldError('audit-project', errors.projectId)}
<select id="audit-project" name="project"${invalid('audit-project', errors.projectId)}>
<option value="">Every project</option>
${(view.projects ?? []).map((p) => html`<option value="${p.id}"${p.id === f.project ? html` selected` : ''}>${p.name}</option>`)}
</select>
<label for="audit-client">AI client (client id)</label>
${fieldError('audit-client', errors.client)}
<input type="text" id="audit-client" name="client" value="${f.client ?? ''}" maxlength="2048"${invalid('audit-client', errors.client)}>
<label for="audit-tool">Tool</label>
${fieldError('audit-tool', errors.tool)}
<input type="text" id="audit-tool" name="tool" value="${f.tool ?? ''}" maxlength="100" placeholder="delete_task"${invalid('audit-tool', errors.tool)}>
<label for="audit-decision">Decision</label>
${fieldError('audit-decision', errors.decision)}
<select id="audit-decision" name="decision"${invalid('audit-decision', errors.decision)}>
<option value="">Any decision</option>
${DECISIONS.map(([value, label]) => html`<option value="${value}"${value === f.decision ? html` selected` : ''}>${label}</option>`)}
</select>
<label for="audit-from">From (UTC)</label>
${fieldError('audit-from', errors.from)}
<input type="datetime-local" id="audit-from" name="from" value="${f.from ?? ''}"${invalid('audit-from', errors.from)}>
<label for="audit-to">To (UTC)</label>
${fieldError('audit-to', errors.to)}
<input type="datetime-local" id="audit-to" name="to" value="${f.to ?? ''}"${invalid('audit-to', errors.to)}>`;
}

/** The OCSF export of a time range: NDJSON, sealed records in chain order with their checkpoints (docs/audit.md). */
function exportForm(base: string, f: AuditFilters): SafeHtml {
  return html`<form method="get" action="${base}/export" class="card" aria-labelledby="export-heading">
<h2 id="export-heading">Export as OCSF</h2>
<p class="hint">The sealed records of the range as OCSF 1.8.0 events, one JSON object a line, with the signed checkpoints. Each export is recorded.</p>
<label for="export-from">From (UTC)</label>
<input type="datetime-local" id="export-from" name="from" value="${f.from ?? ''}">
<label for="export-to">To (UTC)</label>
<input type="datetime-local" id="export-to" name="to" value="${f.to ?? ''}">
<div class="actions"><button type="submit">Download</button></div>
</form>`;
}
