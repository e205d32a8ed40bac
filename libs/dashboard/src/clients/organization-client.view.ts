import type { CreatedConfidentialClientDto, OrganizationClientDto, RotatedClientSecretDto } from '@app/oauth';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { fieldError, invalid } from '../views/field-error';
import { csrfField, dashboardPage, secretField, sectionPath, snippetField } from '../views/layout';
import { ACTIONS_HEADER, dataTable } from '../views/table';
import { when } from '../views/when';

/** The "New organisation client" form: a name people will see. */
export function newOrganizationClientPage(ctx: DashboardContext, form: { clientName: string; error?: string }): HtmlPage {
  const base = sectionPath(ctx.organization!.id, 'clients');
  return dashboardPage(ctx, {
    title: 'New organisation client',
    section: 'clients',
    body: html`<h1>New organisation client</h1>
<p><a href="${base}">Back to Connected clients</a></p>
<p class="muted">An AI client that your identity provider vouches for with an ID-JAG (Enterprise-Managed Authorization) authenticates with a client_id and secret made here, then trades a person's ID-JAG for a project token without a consent screen (docs/oauth.md, "Enterprise-Managed Authorization").</p>
<form method="post" action="${base}/organization-clients" class="card" novalidate>
${csrfField(ctx)}
<label for="organization-client-name">Name</label>
<p class="hint" id="organization-client-name-hint">What people will see on this page and in the audit log (for example “Claude for Acme”).</p>
${fieldError('organization-client-name', form.error)}
<input type="text" id="organization-client-name" name="clientName" maxlength="200" required value="${form.clientName}" aria-describedby="organization-client-name-hint${form.error ? ' organization-client-name-error' : ''}"${invalid(form.error)}>
<div class="actions"><button type="submit" class="primary">Make organisation client</button></div>
</form>`,
  });
}

/** The answer to the making POST: the client_id and the secret, shown this once, and what to do next. */
export function createdOrganizationClientPage(ctx: DashboardContext, created: CreatedConfidentialClientDto): HtmlPage {
  const orgId = ctx.organization!.id;
  return dashboardPage(ctx, {
    title: 'Organisation client made',
    section: 'clients',
    notice: 'Organisation client made.',
    body: html`<h1>Organisation client “${created.clientName}”</h1>
<div class="card">
<p><strong>Copy the secret now: it is shown only this once.</strong> Only a digest of it is stored.</p>
${snippetField('organization-client-id', 'client_id', created.clientId)}
${secretField('organization-client-secret', 'Client secret', created.clientSecret, 'The AI client sends both with HTTP Basic (client_secret_post works too) to the token endpoint, with the grant urn:ietf:params:oauth:grant-type:jwt-bearer.')}
<p>Next: on <a href="${sectionPath(orgId, 'single-sign-on')}">Single sign-on</a>, turn on “accept ID-JAG” and add this client_id to the ID-JAG clients with the project its tokens work on.</p>
<p><a href="${sectionPath(orgId, 'clients')}">Back to Connected clients</a></p>
</div>`,
  });
}

/** The organisation's own clients on the Connected clients page (admins), each with a new secret and delete. */
export function organizationClientsTable(ctx: DashboardContext, clients: readonly (OrganizationClientDto & { createdByName: string | null })[]): SafeHtml {
  const base = `${sectionPath(ctx.organization!.id, 'clients')}/organization-clients`;
  return html`<h2 id="organization-clients-title">Organisation clients</h2>
<p id="organization-clients">An AI client that your identity provider vouches for (ID-JAG) authenticates with an organisation client: <a href="${base}/new">New organisation client</a></p>
${
  clients.length === 0
    ? html`<p class="muted">No organisation client yet.</p>`
    : dataTable(
        `Organisation clients of ${ctx.organization!.name}`,
        ['Name', 'client_id', 'Made by', 'Made', 'Last used', ACTIONS_HEADER],
        clients.map(
          (c) => html`<tr>
<td>${c.clientName}</td>
<td><code>${c.clientId}</code></td>
<td>${c.createdByName ?? html`<span class="muted">A former admin</span>`}</td>
<td>${when(c.createdAt)}</td>
<td>${when(c.lastUsedAt)}</td>
<td><form method="post" action="${base}/${c.clientId}/rotate" class="inline">${csrfField(ctx)}<button type="submit" aria-label="New secret for ${c.clientName}">New secret</button></form>
<a href="${base}/${c.clientId}/delete" aria-label="Delete ${c.clientName}">Delete</a></td>
</tr>`,
        ),
      )
}`;
}

/** The answer to a new secret: shown this once; the old one no longer works. */
export function rotatedOrganizationClientPage(ctx: DashboardContext, clientName: string, rotated: RotatedClientSecretDto): HtmlPage {
  return dashboardPage(ctx, {
    title: 'New client secret',
    section: 'clients',
    notice: 'New client secret made. The old one no longer works.',
    body: html`<h1>New secret for “${clientName}”</h1>
<div class="card">
<p><strong>Copy the secret now: it is shown only this once.</strong> The AI client needs it from now on; tokens it already has keep working.</p>
${snippetField('organization-client-id', 'client_id', rotated.clientId)}
${secretField('organization-client-secret', 'Client secret', rotated.clientSecret, 'Sent with the client_id by HTTP Basic (or client_secret_post) to the token endpoint.')}
<p><a href="${sectionPath(ctx.organization!.id, 'clients')}">Back to Connected clients</a></p>
</div>`,
  });
}

/** Asks before deleting an organisation client: what ends. */
export function deleteOrganizationClientPage(ctx: DashboardContext, client: OrganizationClientDto): HtmlPage {
  const base = sectionPath(ctx.organization!.id, 'clients');
  return dashboardPage(ctx, {
    title: `Delete ${client.clientName}?`,
    section: 'clients',
    body: html`<div class="card">
<h1>Delete the organisation client “${client.clientName}”?</h1>
<p>Its <code>client_id</code> <code>${client.clientId}</code> stops working at once: every token it traded is refused from its next request, and it leaves the ID-JAG clients of the single sign-on settings. This cannot be undone.</p>
<form method="post" action="${base}/organization-clients/${client.clientId}/delete">${csrfField(ctx)}
<div class="actions"><a href="${base}">Cancel</a><button type="submit" class="danger primary">Delete</button></div>
</form>
</div>`,
  });
}
