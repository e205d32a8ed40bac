import { DEFAULT_OVERLAP_SECONDS } from '@app/common';
import type { ProjectTokenDto, ServiceKeyDto } from '@app/service-keys';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, sectionPath, secretField, snippetField } from '../views/layout';
import { when } from '../views/when';
import { connectSnippets } from './connect-snippets';
import { tokenState } from './service-keys.format';

function keyPathOf(ctx: DashboardContext, key: { id: string }): string {
  return `${sectionPath(ctx.organization!.id, 'service-keys')}/${key.id}`;
}

export interface TokenSecretView {
  key: ServiceKeyDto;
  projectName: string;
  /** The `dga_` secret: in this response only. */
  token: string;
  mcpUrl: string;
  /** After a rotation: until when the previous secret keeps working. */
  previousWorksUntil?: Date;
}

/**
 * The answer to "Derive token" and "Rotate token": the secret, once, with a Copy button, and
 * snippets to connect a client with it. Never reachable by a GET: reloading or going back does
 * not show it again.
 */
export function tokenSecretPage(ctx: DashboardContext, view: TokenSecretView): HtmlPage {
  const s = connectSnippets(view.mcpUrl, view.token, view.projectName);
  const rotated = view.previousWorksUntil !== undefined;
  return dashboardPage(ctx, {
    title: rotated ? 'Token rotated' : 'Token derived',
    section: 'service-keys',
    body: html`<h1>${rotated ? 'New token' : 'Token'} for “${view.projectName}”</h1>
<p>From the service key “${view.key.name}”. It acts on this project only, with the key’s permissions (${view.key.permissions.join(', ')}).</p>
${rotated
  ? html`<p class="notice" role="status">The previous token keeps working until ${when(view.previousWorksUntil!)}: deploy this one before then.</p>`
  : ''}
<section class="card" aria-labelledby="secret-title">
<h2 id="secret-title">Copy the token now</h2>
${secretField('project-token', 'Project token', view.token, 'Shown this once: it is not stored and cannot be shown again. If you lose it, rotate the token.')}
</section>
<section class="card" aria-labelledby="connect-title">
<h2 id="connect-title">Connect with it</h2>
<p class="muted">The MCP endpoint is <code>${view.mcpUrl}</code>. The Claude Code, Cursor shell line and curl snippets contain the token: keep them out of repositories and shared documents. The VS Code and Cursor files do not: they ask for the token or read it from the environment.</p>
${snippetField('snippet-claude', 'Claude Code (run in a terminal)', s.claude)}
${snippetField('snippet-vscode', 'VS Code (.vscode/mcp.json or your user mcp.json): VS Code asks for the token once and keeps it in its secret storage', s.vscode)}
${snippetField('snippet-cursor', 'Cursor (~/.cursor/mcp.json): the header reads the token from the environment', s.cursor)}
${snippetField('snippet-cursor-env', `Cursor: set ${s.cursorEnvVar} where Cursor starts (your shell profile, not a file in the repository)`, s.cursorEnv)}
${snippetField('snippet-curl', 'curl: list the tools', s.curl)}
</section>
<p><a href="${keyPathOf(ctx, view.key)}">Done: back to “${view.key.name}”</a></p>`,
  });
}

const OVERLAPS: { seconds: number; label: string }[] = [
  { seconds: 0, label: 'Stop it at once' },
  { seconds: 3600, label: '1 hour' },
  { seconds: DEFAULT_OVERLAP_SECONDS, label: '24 hours' },
  { seconds: 3 * 86400, label: '3 days' },
  { seconds: 7 * 86400, label: '7 days' },
];

/** The rotation form: how long the current secret keeps working beside the new one. */
export function rotateTokenPage(
  ctx: DashboardContext,
  view: { key: ServiceKeyDto; token: ProjectTokenDto; projectName: string; form?: { overlapSeconds: string; error?: string } },
): HtmlPage {
  const keyPath = keyPathOf(ctx, view.key);
  const chosen = view.form?.overlapSeconds ?? String(DEFAULT_OVERLAP_SECONDS);
  const error = view.form?.error;
  const canRotate = view.key.status === 'active' && view.token.status === 'active';
  return dashboardPage(ctx, {
    title: `Rotate the token for ${view.projectName}`,
    section: 'service-keys',
    body: html`<div class="card">
<h1>Rotate the token for “${view.projectName}”</h1>
${canRotate
  ? html`<p>A new secret is issued now and shown once. The current one keeps working for the time you choose, so the machine can switch without an outage; then it is refused.</p>
<form method="post" action="${keyPath}/tokens/${view.token.id}/rotate" novalidate>
${csrfField(ctx)}
<label for="overlap">The current token keeps working for</label>
${error ? html`<p class="field-error" id="overlap-error">${error}</p>` : ''}
<select id="overlap" name="overlapSeconds"${error ? html` aria-invalid="true" aria-describedby="overlap-error"` : ''}>
${OVERLAPS.map((o) => html`<option value="${String(o.seconds)}"${String(o.seconds) === chosen ? html` selected` : ''}>${o.label}</option>`)}
</select>
<div class="actions"><button type="submit" class="primary">Rotate token</button></div>
</form>`
  : html`<p>Only an active token of an active key can be rotated. This one: ${tokenState(view.token)}.</p>`}
<p><a href="${keyPath}">Cancel</a></p>
</div>`,
  });
}

/** The confirmation before revoking one derived token. */
export function revokeTokenPage(ctx: DashboardContext, view: { key: ServiceKeyDto; token: ProjectTokenDto; projectName: string }): HtmlPage {
  const keyPath = keyPathOf(ctx, view.key);
  const live = view.token.status !== 'revoked';
  const body: SafeHtml = live
    ? html`<h1>Revoke the token for “${view.projectName}”?</h1>
<p><strong>1 token ends</strong>: every machine using it is refused at its next request. The service key “${view.key.name}” and its other tokens keep working. This cannot be undone.</p>
<form method="post" action="${keyPath}/tokens/${view.token.id}/revoke">
${csrfField(ctx)}
<div class="actions"><button type="submit" class="danger primary">Revoke token</button></div>
</form>`
    : html`<h1>The token for “${view.projectName}” is already revoked</h1>
<p>${tokenState(view.token)}.</p>`;
  return dashboardPage(ctx, {
    title: `Revoke the token for ${view.projectName}`,
    section: 'service-keys',
    body: html`<div class="card">${body}
<p><a href="${keyPath}">${live ? 'Cancel' : 'Back to the key'}</a></p>
</div>`,
  });
}
