import { AGENT_PERMISSION_NAMES, AGENT_PERMISSIONS, AgentPermission } from '@app/credentials';
import { html, HtmlPage, page } from '@app/web';

export interface ConsentProjectGroup {
  organizationId: string;
  organizationName: string;
  projects: { id: string; name: string }[];
}

export interface ConsentView {
  requestId: string;
  csrfToken: string;
  clientName: string;
  /** A metadata-document client: the host of its `client_id` URL, which vouches for the name. */
  clientIdHost?: string;
  redirectHost: string;
  userEmail: string;
  switchAccountHref: string;
  groups: ConsentProjectGroup[];
  checkedPermissions: readonly AgentPermission[];
  selectedProjectId?: string;
  error?: string;
}

/**
 * The consent page: who asks (client name, where the answer goes), one project to pick
 * (radios grouped by organisation), a checkbox per agent permission, Approve or Deny. The form
 * carries only the pending request's id, the CSRF token and the choices.
 */
export function consentPage(view: ConsentView): HtmlPage {
  const hasProjects = view.groups.some((g) => g.projects.length > 0);
  const onlyOne = view.groups.length === 1 && view.groups[0].projects.length === 1;
  return page(
    `Allow ${view.clientName}?`,
    html`<div class="card">
<h1>Allow <strong>${view.clientName}</strong> to use Agent Gateway?</h1>
${view.clientIdHost
  ? html`<p id="client-id-host">Identified by <strong><code>${view.clientIdHost}</code></strong>: the name above is what that site says about itself.</p>`
  : ''}
<p class="muted">The application will receive its answer at <code>${view.redirectHost}</code>. Signed in as ${view.userEmail}
(<a href="${view.switchAccountHref}">use another account</a>).</p>
${view.error ? html`<div class="error" role="alert" id="consent-error">${view.error}</div>` : ''}
<form method="post" action="/api/agent/oauth/authorize">
<input type="hidden" name="request_id" value="${view.requestId}">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
${hasProjects
  ? html`<fieldset>
<legend>Project it may work on (pick one)</legend>
${view.groups.map(
  (group) => html`<fieldset>
<legend>${group.organizationName}</legend>
${group.projects.map(
  (project) => html`<label class="choice"><input type="radio" name="project_id" value="${project.id}" required${
    project.id === view.selectedProjectId || onlyOne ? html` checked` : ''
  }><span>${project.name}</span></label>`,
)}
</fieldset>`,
)}
</fieldset>
<fieldset>
<legend>What it may do (at least one)</legend>
${AGENT_PERMISSION_NAMES.map(
  (permission) => html`<label class="choice"><input type="checkbox" name="permissions" value="${permission}" aria-describedby="perm-${permission.replace(':', '-')}"${
    view.checkedPermissions.includes(permission) ? html` checked` : ''
  }><span><code>${permission}</code><span class="desc" id="perm-${permission.replace(':', '-')}">${AGENT_PERMISSIONS[permission]}</span></span></label>`,
)}
</fieldset>
<div class="actions">
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
</div>`
  : html`<p>You are not a member of any organisation with a project, so there is nothing to connect yet. Create a project in your organisation (or ask an administrator to add you to one), then connect the application again.</p>
<div class="actions"><button type="submit" name="decision" value="deny">Deny</button></div>`}
</form>
<p class="muted">You can disconnect the application at any time; it never sees your password.</p>
</div>`,
  );
}
