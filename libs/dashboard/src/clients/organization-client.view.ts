import type { CreatedConfidentialClientDto } from '@app/oauth';
import { html, HtmlPage } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { fieldError, invalid } from '../views/field-error';
import { csrfField, dashboardPage, secretField, sectionPath, snippetField } from '../views/layout';

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
