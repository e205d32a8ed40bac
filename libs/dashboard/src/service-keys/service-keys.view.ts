import type { ServiceKeyDto } from '@app/service-keys';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, pager, sectionPath } from '../views/layout';
import { when } from '../views/when';
import { dataTable } from '../views/table';
import { creatorName, liveTokens } from './service-keys.format';

export interface ServiceKeysView {
  keys: ServiceKeyDto[];
  nextCursor: string | null;
  onFirstPage: boolean;
  /** The page size asked for in the address, carried by the pager. */
  limit?: number;
  /** The create form's value and error after a refused post. */
  form?: { name: string; error?: string };
  notice?: string;
}

const WHAT_IT_IS =
  'A service key lets a machine — a server, a script, an automation — call the tools of this organisation’s projects without a person signing in. ' +
  'From one key you derive one token (dga_…) per project the machine works on; revoking the key ends all of them at once.';

/** Service keys: the list (newest first, paginated) and the "New service key" form. */
export function serviceKeysPage(ctx: DashboardContext, view: ServiceKeysView): HtmlPage {
  const orgId = ctx.organization!.id;
  const base = sectionPath(orgId, 'service-keys');
  const empty = view.keys.length === 0 && view.onFirstPage;
  return dashboardPage(ctx, {
    title: 'Service keys',
    section: 'service-keys',
    notice: view.notice,
    body: html`<h1>Service keys</h1>
${empty
  ? html`<div class="empty"><p><strong>No service keys yet.</strong> ${WHAT_IT_IS}</p>
<p>Create one for each machine below, then derive a token for each project it should reach.</p></div>`
  : html`<p class="muted">${WHAT_IT_IS}</p>
${dataTable(
  `Service keys of ${ctx.organization!.name}`,
  ['Name', 'Created by', 'Created', 'Last used', 'Derived tokens'],
  view.keys.map((key) => keyRow(base, key)),
)}
${pager(base, view.nextCursor, view.onFirstPage, view.limit ? { limit: String(view.limit) } : {})}`}
${createForm(ctx, base, view.form)}`,
  });
}

function keyRow(base: string, key: ServiceKeyDto): SafeHtml {
  const live = liveTokens(key.tokens).length;
  const revoked = key.tokens.length - live;
  const lastUsed = key.tokens.reduce<Date | null>((latest, t) => (t.lastUsedAt && (!latest || t.lastUsedAt > latest) ? t.lastUsedAt : latest), null);
  return html`<tr>
<td><a href="${base}/${key.id}">${key.name}</a>${key.status === 'revoked' ? html` <span class="muted">(revoked)</span>` : ''}</td>
<td>${creatorName(key.createdBy)}</td>
<td>${when(key.createdAt)}</td>
<td>${when(lastUsed, 'Never')}</td>
<td>${live} live${revoked ? html` <span class="muted">· ${revoked} ended</span>` : ''}</td>
</tr>`;
}

function createForm(ctx: DashboardContext, base: string, form: ServiceKeysView['form']): SafeHtml {
  const error = form?.error;
  return html`<section class="card" aria-labelledby="new-service-key">
<h2 id="new-service-key">New service key</h2>
<form method="post" action="${base}" novalidate>
${csrfField(ctx)}
<label for="service-key-name">Name</label>
<p class="hint" id="service-key-name-hint">What the machine is, so you recognise it later (“nightly sync”, “deploy bot”).</p>
${error ? html`<p class="field-error" id="service-key-name-error">${error}</p>` : ''}
<input type="text" id="service-key-name" name="name" maxlength="200" required value="${form?.name ?? ''}" aria-describedby="service-key-name-hint${error ? ' service-key-name-error' : ''}"${error ? html` aria-invalid="true"` : ''}>
<p class="muted">Its tokens carry every agent permission (read the project, read, write and delete tasks).</p>
<div class="actions"><button type="submit" class="primary">Create service key</button></div>
</form>
</section>`;
}

/** The confirmation before revoking a key: what ends with it. */
export function revokeKeyPage(ctx: DashboardContext, key: ServiceKeyDto): HtmlPage {
  const orgId = ctx.organization!.id;
  const keyPath = `${sectionPath(orgId, 'service-keys')}/${key.id}`;
  const live = liveTokens(key.tokens).length;
  if (key.status === 'revoked') {
    return dashboardPage(ctx, {
      title: `Service key ${key.name}`,
      section: 'service-keys',
      body: html`<div class="card"><h1>“${key.name}” is already revoked</h1>
<p>It was revoked ${when(key.revokedAt)}; none of its tokens work.</p>
<p><a href="${keyPath}">Back to the key</a></p></div>`,
    });
  }
  return dashboardPage(ctx, {
    title: `Revoke ${key.name}`,
    section: 'service-keys',
    body: html`<div class="card">
<h1>Revoke the service key “${key.name}”?</h1>
<p><strong>${live === 0 ? 'No derived token ends with it' : live === 1 ? '1 derived token ends with it' : `${live} derived tokens end with it`}</strong>${
      live ? ': every machine using one is refused at its next request.' : '.'
    } No token can be derived from it again. This cannot be undone.</p>
<form method="post" action="${keyPath}/revoke">
${csrfField(ctx)}
<div class="actions"><button type="submit" class="danger primary">Revoke service key</button></div>
</form>
<p><a href="${keyPath}">Cancel</a></p>
</div>`,
  });
}
