import type { ProjectTokenDto, ServiceKeyDto } from '@app/service-keys';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, pager, sectionPath } from '../views/layout';
import { pickerPager, pickerSearch } from '../views/picker';
import { when } from '../views/when';
import { creatorName, liveTokens, tokenState } from './service-keys.format';
import { DERIVE_PICKER, DeriveChoices } from './service-keys.pages';

export interface ServiceKeyView {
  key: ServiceKeyDto;
  /** This page of the key's derived tokens. */
  tokens: ProjectTokenDto[];
  nextCursor: string | null;
  onFirstPage: boolean;
  limit?: number;
  /** The derive form's "Project" choices: one page of the matches of its search. */
  choices: DeriveChoices;
  /** The names of the projects of this page's tokens, by id (a deleted project is absent). */
  tokenProjects: Map<string, string>;
  /** The derive form's choice and error after a refused post. */
  form?: { projectId: string; error?: string; expiresAt?: string; expiryError?: string };
  notice?: string;
}

/** One service key: what it is, "Derive a token", its derived tokens (paginated) and "Revoke". */
export function serviceKeyPage(ctx: DashboardContext, view: ServiceKeyView): HtmlPage {
  const { key } = view;
  const orgId = ctx.organization!.id;
  const keyPath = `${sectionPath(orgId, 'service-keys')}/${key.id}`;
  const names = view.tokenProjects;
  const active = key.status === 'active';
  return dashboardPage(ctx, {
    title: `Service key ${key.name}`,
    section: 'service-keys',
    notice: view.notice,
    body: html`<p><a href="${sectionPath(orgId, 'service-keys')}">All service keys</a></p>
<h1>Service key “${key.name}”</h1>
<p class="muted">Created ${when(key.createdAt)} by ${creatorName(key.createdBy)} · its tokens may: ${key.permissions.join(', ')}</p>
${active ? '' : html`<p class="notice" role="status">Revoked ${when(key.revokedAt)}: none of its tokens work, and no new one can be derived.</p>`}
${active ? deriveForm(ctx, keyPath, view) : ''}
<h2 id="tokens-title">Derived tokens</h2>
${view.tokens.length === 0 && view.onFirstPage
  ? html`<p class="empty">No token derived yet.${active ? ' Derive one above for each project a machine should reach.' : ''}</p>`
  : html`<div class="table-wrap"><table aria-labelledby="tokens-title">
<thead><tr><th scope="col">Project</th><th scope="col">Status</th><th scope="col">Secret</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
<tbody>${view.tokens.map((t) => tokenRow(keyPath, t, names.get(t.projectId), active))}</tbody>
</table></div>
${pager(keyPath, view.nextCursor, view.onFirstPage, view.limit ? { limit: String(view.limit) } : {})}`}
${active
  ? html`<section class="card" aria-labelledby="revoke-title">
<h2 id="revoke-title">Revoke this key</h2>
<p>Revoking ends every token derived from it at once (${countOf(liveTokens(key.tokens).length)} now).</p>
<p><a href="${keyPath}/revoke">Revoke service key</a></p>
</section>`
  : ''}`,
  });
}

function countOf(n: number): string {
  return n === 1 ? '1 live token' : `${n} live tokens`;
}

function tokenRow(keyPath: string, token: ProjectTokenDto, projectName: string | undefined, keyActive: boolean): SafeHtml {
  const project = projectName ?? 'A deleted project';
  const actions: SafeHtml[] = [];
  if (keyActive && token.status === 'active') {
    actions.push(html`<a href="${keyPath}/tokens/${token.id}/rotate" aria-label="Rotate the token for ${project}">Rotate</a>`);
  }
  if (keyActive && (token.status === 'active' || token.status === 'rotating_out')) {
    const which = token.status === 'rotating_out' ? 'the rotating-out token' : 'the token';
    actions.push(html`<a href="${keyPath}/tokens/${token.id}/revoke" aria-label="Revoke ${which} for ${project}">Revoke</a>`);
  }
  return html`<tr>
<td>${projectName ?? html`<span class="muted">${project}</span>`}</td>
<td>${tokenState(token)}</td>
<td><code>${token.secretHint}</code></td>
<td>${when(token.createdAt)}</td>
<td>${when(token.lastUsedAt, 'Never')}</td>
<td>${actions.length ? html`<span class="inline">${actions.map((a, i) => html`${i ? ' · ' : ''}${a}`)}</span>` : html`<span class="muted">—</span>`}</td>
</tr>`;
}

function deriveForm(ctx: DashboardContext, keyPath: string, view: ServiceKeyView): SafeHtml {
  const orgId = ctx.organization!.id;
  const { choices } = view;
  if (!choices.anyProject) {
    return html`<section class="card" aria-labelledby="derive-title">
<h2 id="derive-title">Derive a token</h2>
<p>This organisation has no project yet. Every token acts on exactly one project: <a href="${sectionPath(orgId, 'projects')}">create a project in Projects</a> first, then come back here.</p>
</section>`;
  }
  const withToken = new Set(view.key.tokens.filter((t) => t.status === 'active').map((t) => t.projectId));
  const error = view.form?.error;
  const expiryError = view.form?.expiryError;
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const chosen = view.form?.projectId ?? '';
  const none = choices.projects.length === 0;
  return html`<section class="card" aria-labelledby="derive-title">
<h2 id="derive-title">Derive a token</h2>
${pickerSearch({ action: keyPath, id: 'derive-project-query', name: DERIVE_PICKER.query, label: 'Search by name', value: choices.query })}
<form method="post" action="${keyPath}/tokens" novalidate>
${csrfField(ctx)}
<label for="derive-project">Project</label>
<p class="hint" id="derive-project-hint">The token acts on this project only. Its secret is shown once, on the next page.${
    choices.query ? ` Showing the projects whose name contains “${choices.query}”.` : ''
  }</p>
${error ? html`<p class="field-error" id="derive-project-error">${error}</p>` : ''}
${none ? html`<p class="empty" id="derive-project-none">No project’s name contains “${choices.query}”.</p>` : ''}
<select id="derive-project" name="projectId" required aria-describedby="derive-project-hint${error ? ' derive-project-error' : ''}"${error ? html` aria-invalid="true"` : ''}>
<option value="">Choose a project</option>
${choices.projects.map(
  (p) => html`<option value="${p.id}"${p.id === chosen ? html` selected` : ''}>${p.name}${withToken.has(p.id) ? ' (has a token already)' : ''}</option>`,
)}
</select>
${pickerPager({
  basePath: keyPath,
  params: { [DERIVE_PICKER.query]: choices.query },
  cursorName: DERIVE_PICKER.cursor,
  nextCursor: choices.nextCursor,
  onFirstPage: choices.onFirstPage,
  what: 'projects',
})}
<label for="derive-expiry">Expires on (optional)</label>
<p class="hint" id="derive-expiry-hint">Leave empty for a token that works until it is revoked. The token stops working at 00:00 UTC on this day; its rotations keep the same day.</p>
${expiryError ? html`<p class="field-error" id="derive-expiry-error">${expiryError}</p>` : ''}
<input type="date" id="derive-expiry" name="expiresAt" min="${tomorrow}" value="${view.form?.expiresAt ?? ''}" aria-describedby="derive-expiry-hint${expiryError ? ' derive-expiry-error' : ''}"${expiryError ? html` aria-invalid="true"` : ''}>
<div class="actions"><button type="submit" class="primary">Derive token</button></div>
</form>
</section>`;
}
