import type { CreatedScimTokenDto, ScimTokenDto } from '@app/scim-tokens';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, secretField, sectionPath, snippetField } from '../views/layout';
import { when } from '../views/when';
import { fieldError, invalid } from '../views/field-error';
import { ACTIONS_HEADER, dataTable, emptyState } from '../views/table';

export interface ScimTokenRow extends ScimTokenDto {
  /** The maker's name, when they still have an account. */
  createdByName: string | null;
}

export interface NewScimTokenForm {
  name: string;
  expiresAt: string;
  errors: Partial<Record<'name' | 'expiresAt', string>>;
}

const expired = (t: ScimTokenDto) => t.expiresAt !== null && Date.parse(t.expiresAt) <= Date.now();

/** SCIM tokens: what the identity provider's SCIM client sends; the list, and the way to a new one. */
export function scimTokensPage(ctx: DashboardContext, view: { tokens: ScimTokenRow[]; scimBaseUrl: string; notice?: string }): HtmlPage {
  const base = sectionPath(ctx.organization!.id, 'scim-tokens');
  return dashboardPage(ctx, {
    title: 'SCIM tokens',
    section: 'scim-tokens',
    notice: view.notice,
    body: html`<h1>SCIM tokens</h1>
<p class="muted">Your identity provider's SCIM client (Okta, Microsoft Entra ID…) creates, updates and deactivates this organisation's people at <code>${view.scimBaseUrl}</code>, sending a SCIM token (<code>scim_…</code>) as its bearer token. A token opens this organisation's SCIM endpoint only (docs/sso.md, "SCIM").</p>
<p><a href="${base}/new">New SCIM token</a></p>
${view.tokens.length === 0
  ? emptyState('No SCIM tokens yet.', 'Make one for your identity provider; its secret is shown once, when you make it.')
  : dataTable(
      `SCIM tokens of ${ctx.organization!.name}, newest first`,
      ['Name', 'Token', 'Made', 'Expires', 'Last used', ACTIONS_HEADER],
      view.tokens.map((t) => tokenRow(base, t)),
    )}`,
  });
}

function tokenRow(base: string, token: ScimTokenRow): SafeHtml {
  return html`<tr>
<td>${token.name}</td>
<td><code>${token.hint}</code></td>
<td>${when(token.createdAt)}${token.createdByName ? html`<br><span class="muted">by ${token.createdByName}</span>` : ''}</td>
<td>${expired(token) ? html`Expired ${when(token.expiresAt)}` : when(token.expiresAt, 'Never')}</td>
<td>${when(token.lastUsedAt)}</td>
<td><a href="${base}/${token.id}/revoke" aria-label="Revoke ${token.name}">Revoke</a></td>
</tr>`;
}

/** The "New SCIM token" form: a name and an optional expiry day. */
export function newScimTokenPage(ctx: DashboardContext, form: NewScimTokenForm): HtmlPage {
  const base = sectionPath(ctx.organization!.id, 'scim-tokens');
  const { errors } = form;
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return dashboardPage(ctx, {
    title: 'New SCIM token',
    section: 'scim-tokens',
    body: html`<h1>New SCIM token</h1>
<p><a href="${base}">Back to SCIM tokens</a></p>
<form method="post" action="${base}" class="card" novalidate>
${csrfField(ctx)}
<label for="scim-token-name">Name</label>
<p class="hint" id="scim-token-name-hint">Which SCIM client will use it, so you recognise it later (for example “Okta”).</p>
${fieldError('scim-token-name', errors.name)}
<input type="text" id="scim-token-name" name="name" maxlength="100" required value="${form.name}" aria-describedby="scim-token-name-hint${errors.name ? ' scim-token-name-error' : ''}"${invalid(errors.name)}>
<label for="scim-token-expiry">Expires on (optional)</label>
<p class="hint" id="scim-token-expiry-hint">Leave empty for a token that works until it is revoked. It stops working at 00:00 UTC on this day.</p>
${fieldError('scim-token-expiry', errors.expiresAt)}
<input type="date" id="scim-token-expiry" name="expiresAt" min="${tomorrow}" value="${form.expiresAt}" aria-describedby="scim-token-expiry-hint${errors.expiresAt ? ' scim-token-expiry-error' : ''}"${invalid(errors.expiresAt)}>
<div class="actions"><button type="submit" class="primary">Make SCIM token</button></div>
</form>`,
  });
}

/** The answer to the making POST: the secret, shown this once, and the base URL to give the IdP. */
export function createdScimTokenPage(ctx: DashboardContext, created: CreatedScimTokenDto): HtmlPage {
  return dashboardPage(ctx, {
    title: 'SCIM token made',
    section: 'scim-tokens',
    notice: 'SCIM token made.',
    body: html`<h1>SCIM token “${created.name}”</h1>
<div class="card">
<p><strong>Copy the token now: it is shown only this once.</strong> Only a digest of it is stored; if it is lost, revoke it and make another.</p>
${snippetField('scim-base-url', 'SCIM base URL (the tenant URL your identity provider asks for)', created.scimBaseUrl)}
${secretField('scim-token-secret', 'SCIM token', created.token, 'Your identity provider sends it as its bearer token (API token, secret token).')}
<p>Expires: ${when(created.expiresAt, 'never')}.</p>
<p><a href="${sectionPath(ctx.organization!.id, 'scim-tokens')}">Back to SCIM tokens</a></p>
</div>`,
  });
}

/** Asks before revoking: what ends. */
export function revokeScimTokenPage(ctx: DashboardContext, token: ScimTokenDto): HtmlPage {
  const base = sectionPath(ctx.organization!.id, 'scim-tokens');
  return dashboardPage(ctx, {
    title: `Revoke ${token.name}?`,
    section: 'scim-tokens',
    body: html`<div class="card">
<h1>Revoke the SCIM token “${token.name}”?</h1>
<p>The identity provider's next SCIM request with it is refused, so people are no longer created, changed or deactivated from there until it has a new token. People already provisioned keep their accounts. This cannot be undone.</p>
<p>Last used: ${when(token.lastUsedAt)}.</p>
<form method="post" action="${base}/${token.id}/revoke">${csrfField(ctx)}
<div class="actions"><a href="${base}">Cancel</a><button type="submit" class="danger primary">Revoke SCIM token</button></div>
</form>
</div>`,
  });
}
