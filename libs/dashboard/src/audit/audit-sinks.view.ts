import type { AuditSinkDto, CreatedAuditSinkDto } from '@app/audit-sinks';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, secretField, sectionPath } from '../views/layout';
import { recentSignInField } from '../recent-sign-in-form';
import { fieldError, invalid } from '../views/field-error';
import { ACTIONS_HEADER, dataTable, emptyState } from '../views/table';
import { when } from '../views/when';

export interface NewSinkForm {
  kind: string;
  url: string;
  fromSeq: string;
  errors: Partial<Record<'kind' | 'url' | 'token' | 'fromSeq' | 'password', string>>;
}

const KIND_NAMES: Record<string, string> = { https: 'https (signed NDJSON)', splunk_hec: 'Splunk HEC' };

export const sinksPath = (orgId: string) => `${sectionPath(orgId, 'audit')}/sinks`;

/** "Delivered through N, behind by M": where a sink stands in the chain. */
export function progressOf(sink: Pick<AuditSinkDto, 'lastDeliveredSeq' | 'lag'>): string {
  const through = sink.lastDeliveredSeq === 0 ? 'Nothing delivered yet' : `Delivered through ${sink.lastDeliveredSeq}`;
  return `${through}, behind by ${sink.lag}`;
}

/** The organisation's sinks: each with its progress and last error, and the way to a new one. */
export function auditSinksPage(ctx: DashboardContext, view: { sinks: AuditSinkDto[]; head: number; notice?: string }): HtmlPage {
  const base = sinksPath(ctx.organization!.id);
  return dashboardPage(ctx, {
    title: 'Audit sinks',
    section: 'audit',
    notice: view.notice,
    body: html`<h1>Audit sinks</h1>
<p><a href="${sectionPath(ctx.organization!.id, 'audit')}">Back to the audit log</a></p>
<p class="muted">Each sink receives this organisation's audit chain in order, at least once: every sealed record as an OCSF event, and the signed checkpoints (docs/audit.md, "Sinks"). The chain is at record ${view.head}.</p>
<p><a href="${base}/new">Add a sink</a></p>
${view.sinks.length === 0
  ? emptyState('No audit sinks yet.', 'Add one to deliver this log to your SIEM.')
  : dataTable(
      `Audit sinks of ${ctx.organization!.name}`,
      ['Kind', 'Where', 'Delivery', 'Last error', 'Added', ACTIONS_HEADER],
      view.sinks.map((sink) => html`<tr>
<td>${KIND_NAMES[sink.kind] ?? sink.kind}</td>
<td><code>${sink.url}</code></td>
<td>${progressOf(sink)}</td>
<td>${sink.lastError ?? html`<span class="muted">None</span>`}</td>
<td>${when(sink.createdAt)}</td>
<td><a href="${base}/${sink.id}/delete" aria-label="Delete the sink ${sink.url}">Delete</a></td>
</tr>`),
    )}`,
  });
}

/** The "Add a sink" form: kind, URL, Splunk's token, where to start, and the password when the sign-in is old. */
export function newAuditSinkPage(ctx: DashboardContext, form: NewSinkForm): HtmlPage {
  const base = sinksPath(ctx.organization!.id);
  const { errors } = form;
  const described = (id: string, error: string | undefined) => html` aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}"${invalid(error)}`;
  return dashboardPage(ctx, {
    title: 'Add an audit sink',
    section: 'audit',
    body: html`<h1>Add an audit sink</h1>
<p><a href="${base}">Back to audit sinks</a></p>
<form method="post" action="${base}" class="card" novalidate>
${csrfField(ctx)}
<label for="sink-kind">Kind</label>
<p class="hint" id="sink-kind-hint">https: each body is NDJSON of the export's lines, signed per Standard Webhooks. Splunk HEC: events to the HTTP Event Collector.</p>
${fieldError('sink-kind', errors.kind)}
<select id="sink-kind" name="kind"${described('sink-kind', errors.kind)}>
${Object.entries(KIND_NAMES).map(([value, label]) => html`<option value="${value}"${form.kind === value ? html` selected` : ''}>${label}</option>`)}
</select>
<label for="sink-url">URL</label>
<p class="hint" id="sink-url-hint">https only. For Splunk HEC, the collector's base URL (https://splunk.example.com:8088).</p>
${fieldError('sink-url', errors.url)}
<input type="url" id="sink-url" name="url" maxlength="2048" required value="${form.url}"${described('sink-url', errors.url)}>
<label for="sink-token">HEC token (Splunk HEC only)</label>
<p class="hint" id="sink-token-hint">Stored encrypted and never shown again.</p>
${fieldError('sink-token', errors.token)}
<input type="password" id="sink-token" name="token" maxlength="512" autocomplete="off"${described('sink-token', errors.token)}>
<label for="sink-from">Start at record (optional)</label>
<p class="hint" id="sink-from-hint">Empty: the records sealed from now on. 1: the whole chain.</p>
${fieldError('sink-from', errors.fromSeq)}
<input type="text" inputmode="numeric" id="sink-from" name="fromSeq" value="${form.fromSeq}"${described('sink-from', errors.fromSeq)}>
${recentSignInField(ctx, { id: 'sink-password', returnTo: `${base}/new`, organizationId: ctx.organization!.id, error: errors.password, newTab: true })}
<div class="actions"><button type="submit" class="primary">Add sink</button></div>
</form>`,
  });
}

/** The answer to adding a sink: an https sink's signing secret, shown this once. */
export function createdAuditSinkPage(ctx: DashboardContext, created: CreatedAuditSinkDto): HtmlPage {
  return dashboardPage(ctx, {
    title: 'Audit sink added',
    section: 'audit',
    notice: 'Audit sink added. Delivery starts within a second.',
    body: html`<h1>Audit sink added</h1>
<div class="card">
<p><code>${created.url}</code>: ${progressOf(created)}.</p>
${created.signingSecret
  ? html`<p><strong>Copy the signing secret now: it is shown only this once.</strong> Your receiver verifies each body with it (Standard Webhooks).</p>
${secretField('sink-signing-secret', 'Signing secret', created.signingSecret)}`
  : ''}
<p><a href="${sinksPath(ctx.organization!.id)}">Back to audit sinks</a></p>
</div>`,
  });
}

/** Asks before deleting a sink: what stops, and the password when the sign-in is old. */
export function deleteAuditSinkPage(ctx: DashboardContext, sink: AuditSinkDto, view: { error?: string }): HtmlPage {
  const base = sinksPath(ctx.organization!.id);
  return dashboardPage(ctx, {
    title: 'Delete the audit sink?',
    section: 'audit',
    body: html`<div class="card">
<h1>Delete the audit sink <code>${sink.url}</code>?</h1>
<p>${progressOf(sink)}. Nothing more is delivered to it, and retention no longer waits for it. This cannot be undone.</p>
<form method="post" action="${base}/${sink.id}/delete" novalidate>${csrfField(ctx)}
${recentSignInField(ctx, { id: 'sink-delete-password', returnTo: `${base}/${sink.id}/delete`, organizationId: ctx.organization!.id, error: view.error })}
<div class="actions"><a href="${base}">Cancel</a><button type="submit" class="danger primary">Delete sink</button></div>
</form>
</div>`,
  });
}
