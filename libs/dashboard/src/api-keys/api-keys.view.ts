import type { ApiKeyDto, CreatedApiKeyDto } from '@app/api-keys';
import { API_KEY_PERMISSION_NAMES, API_KEY_PERMISSIONS, ApiKeyPermission } from '@app/credential-store';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, pager, secretField, sectionPath, snippetField } from '../views/layout';
import { when } from '../views/when';
import { fieldError, invalid } from '../views/field-error';
import { ACTIONS_HEADER, dataTable, emptyState } from '../views/table';

export interface ApiKeyRow extends ApiKeyDto {
  /** The creator's name, when they still have an account. */
  createdByName: string | null;
}

export interface ApiKeysListView {
  keys: ApiKeyRow[];
  nextCursor: string | null;
  onFirstPage: boolean;
  notice?: string;
}

export interface NewApiKeyForm {
  name: string;
  permissions: string[];
  expiresAt: string;
  errors: Partial<Record<'name' | 'permissions' | 'expiresAt', string>>;
}

/** What a resource of the catalogue is called on the page (the part of a permission before `:`). */
const RESOURCE_LABELS: Record<string, string> = { projects: 'Projects', service_keys: 'Service keys', members: 'Members', audit: 'Audit log' };

/** The permission catalogue grouped by resource, in catalogue order. */
export function permissionGroups(): { resource: string; label: string; permissions: ApiKeyPermission[] }[] {
  const groups: { resource: string; label: string; permissions: ApiKeyPermission[] }[] = [];
  for (const permission of API_KEY_PERMISSION_NAMES) {
    const resource = permission.split(':')[0]!;
    let group = groups.find((g) => g.resource === resource);
    if (!group) groups.push((group = { resource, label: RESOURCE_LABELS[resource] ?? resource, permissions: [] }));
    group.permissions.push(permission);
  }
  return groups;
}

/** API keys: the list (newest first, paginated) and the way to a new key. */
export function apiKeysPage(ctx: DashboardContext, view: ApiKeysListView): HtmlPage {
  const orgId = ctx.organization!.id;
  const base = sectionPath(orgId, 'api-keys');
  const empty = view.keys.length === 0 && view.onFirstPage;
  return dashboardPage(ctx, {
    title: 'API keys',
    section: 'api-keys',
    notice: view.notice,
    body: html`<h1>API keys</h1>
<p class="muted">An API key (<code>rk_…</code>) lets a script or a server call this organisation's REST API with the permissions you choose. It never opens <code>/api/mcp</code>: AI clients connect through consent, machines with service keys.</p>
<p><a href="${base}/new">New API key</a></p>
${empty
  ? emptyState('No API keys yet.', 'Create one for each script or system that calls the REST API, with only the permissions it needs; its secret is shown once, when you create it.')
  : dataTable(
      `API keys of ${ctx.organization!.name}, newest first`,
      ['Name', 'Key', 'Permissions', 'Status', 'Created', 'Expires', 'Last used', ACTIONS_HEADER],
      view.keys.map((k) => keyRow(base, k)),
    )}
${pager(base, view.nextCursor, view.onFirstPage)}`,
  });
}

function keyRow(base: string, key: ApiKeyRow): SafeHtml {
  const live = key.status === 'active' || key.status === 'rotating_out';
  return html`<tr>
<td>${key.name}</td>
<td><code>${key.secretHint}</code></td>
<td>${codeList(key.permissions)}</td>
<td>${statusOf(key)}</td>
<td>${when(key.createdAt)}${key.createdByName ? html`<br><span class="muted">by ${key.createdByName}</span>` : ''}</td>
<td>${when(key.status === 'rotating_out' ? key.rotatingOutUntil : key.expiresAt, 'Never')}</td>
<td>${when(key.lastUsedAt)}</td>
<td>${live ? html`<a href="${base}/${key.id}/revoke" aria-label="Revoke ${key.name}">Revoke</a>` : ''}</td>
</tr>`;
}

function statusOf(key: ApiKeyDto): SafeHtml {
  switch (key.status) {
    case 'active':
      return html`Active`;
    case 'rotating_out':
      return html`Rotating out`;
    case 'expired':
      return html`Expired`;
    case 'revoked':
      return html`Revoked ${when(key.revokedAt, '')}`;
  }
}

/** The "New API key" form: a name, the catalogue as grouped checkboxes with their descriptions, an optional expiry day. */
export function newApiKeyPage(ctx: DashboardContext, form: NewApiKeyForm): HtmlPage {
  const orgId = ctx.organization!.id;
  const { errors } = form;
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return dashboardPage(ctx, {
    title: 'New API key',
    section: 'api-keys',
    body: html`<h1>New API key</h1>
<p><a href="${sectionPath(orgId, 'api-keys')}">Back to API keys</a></p>
<form method="post" action="${sectionPath(orgId, 'api-keys')}" class="card" novalidate>
${csrfField(ctx)}
<label for="api-key-name">Name</label>
<p class="hint" id="api-key-name-hint">What will use it, so you recognise it later (for example “CI deploy bot”).</p>
${fieldError('api-key-name', errors.name)}
<input type="text" id="api-key-name" name="name" maxlength="100" required value="${form.name}" aria-describedby="api-key-name-hint${errors.name ? ' api-key-name-error' : ''}"${invalid(errors.name)}>
<fieldset>
<legend>Permissions (at least one)</legend>
${fieldError('api-key-permissions', errors.permissions)}
${permissionGroups().map(
  (group) => html`<fieldset>
<legend>${group.label}</legend>
${group.permissions.map((permission) => {
  const id = `perm-${permission.replace(/[^a-z]/g, '-')}`;
  return html`<label class="choice"><input type="checkbox" name="permissions" value="${permission}" aria-describedby="${id}-desc${errors.permissions ? ' api-key-permissions-error' : ''}"${
    form.permissions.includes(permission) ? html` checked` : ''
  }${invalid(errors.permissions)}><span><code>${permission}</code><span class="desc" id="${id}-desc">${API_KEY_PERMISSIONS[permission]}</span></span></label>`;
})}
</fieldset>`,
)}
</fieldset>
<label for="api-key-expiry">Expires on (optional)</label>
<p class="hint" id="api-key-expiry-hint">Leave empty for a key that works until it is revoked. The key stops working at 00:00 UTC on this day.</p>
${fieldError('api-key-expiry', errors.expiresAt)}
<input type="date" id="api-key-expiry" name="expiresAt" min="${tomorrow}" value="${form.expiresAt}" aria-describedby="api-key-expiry-hint${errors.expiresAt ? ' api-key-expiry-error' : ''}"${invalid(errors.expiresAt)}>
<div class="actions"><button type="submit" class="primary">Create API key</button></div>
</form>`,
  });
}

/** The answer to the creating POST: the secret, shown this once, and a call to try it with. */
export function createdApiKeyPage(ctx: DashboardContext, created: CreatedApiKeyDto, tryIt: string): HtmlPage {
  const orgId = ctx.organization!.id;
  return dashboardPage(ctx, {
    title: 'API key created',
    section: 'api-keys',
    notice: 'API key created.',
    body: html`<h1>API key “${created.name}”</h1>
<div class="card">
<p><strong>Copy the key now: it is shown only this once.</strong> Only a digest of it is stored, so it cannot be shown again; if it is lost, revoke it and create another.</p>
${secretField('api-key-secret', 'API key', created.key, 'Send it as “Authorization: Bearer …” to the REST API of this organisation.')}
${snippetField('api-key-curl', 'Try it with curl', tryIt)}
<p>Permissions: ${codeList(created.permissions)}. Expires: ${when(created.expiresAt, 'never')}.</p>
<p><a href="${sectionPath(orgId, 'api-keys')}">Back to API keys</a></p>
</div>`,
  });
}

/** Asks before revoking: what ends, and that it cannot be undone. */
export function revokeApiKeyPage(ctx: DashboardContext, key: ApiKeyDto): HtmlPage {
  const base = sectionPath(ctx.organization!.id, 'api-keys');
  return dashboardPage(ctx, {
    title: `Revoke ${key.name}?`,
    section: 'api-keys',
    body: html`<div class="card">
<h1>Revoke the API key “${key.name}”?</h1>
<p>This ends 1 API key, with its ${key.permissions.length === 1 ? '1 permission' : `${key.permissions.length} permissions`} (${codeList(key.permissions)})${
      key.status === 'rotating_out' ? ', which was already rotating out' : ''
    }. Every request made with it is refused from then on, and a key it replaced that is still rotating out ends with it. This cannot be undone.</p>
<p>Last used: ${when(key.lastUsedAt)}.</p>
<form method="post" action="${base}/${key.id}/revoke">${csrfField(ctx)}
<div class="actions"><a href="${base}">Cancel</a><button type="submit" class="danger primary">Revoke API key</button></div>
</form>
</div>`,
  });
}

function codeList(names: readonly string[]): SafeHtml {
  return html`${names.map((name, i) => html`${i ? ', ' : ''}<code>${name}</code>`)}`;
}
