import { AGENT_PERMISSION_NAMES, AGENT_PERMISSIONS, AgentPermission } from '@app/capabilities';
import type { SessionReachRefusal } from '@app/people';
import { PROJECT_NAME_MAX_LENGTH } from '@app/tenancy';
import { html, HtmlPage, page, SafeHtml } from '@app/web';

export interface ConsentProjectGroup {
  organizationId: string;
  organizationName: string;
  projects: { id: string; name: string }[];
  /** The next matches of this organisation, and back to its first ones. */
  moreHref?: string;
  firstHref?: string;
}

export interface ConsentView {
  requestId: string;
  csrfToken: string;
  clientName: string;
  /** A metadata-document client: the host of its `client_id` URL, which vouches for the name. */
  clientIdHost?: string;
  /** A metadata-document client this person never approved before. */
  newClient?: boolean;
  /** Every redirect URI of the client is on a loopback host. */
  localhostOnly?: boolean;
  redirectHost: string;
  userEmail: string;
  switchAccountHref: string;
  /** One page of the projects the person can reach, per organisation that admits the client (matching the search). */
  groups: ConsentProjectGroup[];
  /**
   * The project search (a GET form to the authorize URL again, which starts a fresh consent
   * request: its hidden fields are the original request's), shown when there is any project.
   */
  projectSearch?: { action: string; hidden: [string, string][]; query: string };
  /** Organisations of the person whose client policy refuses this client. */
  refusedOrganizations?: string[];
  /**
   * Organisations of the person that this session does not open (single sign-on, `SessionReach`):
   * their projects are not offered; each with the sign-in that opens it (and comes back here).
   */
  closedOrganizations?: { name: string; refusal: SessionReachRefusal; signInHref: string }[];
  /**
   * When the person has no project to offer but may create one (an admin of an organisation
   * that admits the client): those organisations, for the "Project name" field.
   */
  createIn?: { id: string; name: string }[];
  /** The "Project name" field's value, organisation and error after a refused approval. */
  newProject?: { name: string; organizationId?: string; error?: string };
  checkedPermissions: readonly AgentPermission[];
  selectedProjectId?: string;
  error?: string;
}

/**
 * Answers only on this computer (every redirect URI on a loopback host). A client that registered
 * itself (dynamic registration) proves nothing about its name, and any program here could have
 * registered it: a warning (RFC 8252 §8.6). A metadata-document client's name is vouched for by
 * its `client_id` site, so a loopback answer is what a desktop or command-line application does:
 * a neutral note.
 */
function localhostNote(view: ConsentView): SafeHtml {
  return view.clientIdHost
    ? html`<p class="muted" role="note" id="consent-localhost-note">This application receives its answer on this computer (localhost), as desktop and command-line applications do.</p>`
    : html`<div class="warning" role="note" id="consent-localhost-only">This application receives its answer only on this computer (localhost): any program running here could use this name. Approve only if you just started it yourself.</div>`;
}

/**
 * The consent page: who asks (client name, where the answer goes), one project to pick
 * (radios grouped by organisation), a checkbox per agent permission, Approve or Deny. The form
 * carries only the pending request's id, the CSRF token and the choices.
 */
export function consentPage(view: ConsentView): HtmlPage {
  const hasProjects = view.groups.some((g) => g.projects.length > 0) || !!view.projectSearch;
  const mayCreate = !hasProjects && !!view.createIn?.length;
  const onlyOne = view.groups.length === 1 && view.groups[0].projects.length === 1;
  return page(
    `Allow ${view.clientName}?`,
    html`<div class="card">
<h1>Allow <strong>${view.clientName}</strong> to use Agent Gateway?</h1>
${view.clientIdHost
  ? html`<p id="client-id-host">Identified by <strong><code>${view.clientIdHost}</code></strong>: the name above is what that site says about itself.</p>`
  : ''}
${view.newClient
  ? html`<div class="warning" role="note" id="consent-new-client">You have not connected this application before. Check that <strong><code>${view.clientIdHost}</code></strong> is the site of the application you meant to connect.</div>`
  : ''}
${view.localhostOnly ? localhostNote(view) : ''}
<p class="muted">The application will receive its answer at <code>${view.redirectHost}</code>. Signed in as ${view.userEmail}
(<a href="${view.switchAccountHref}">use another account</a>).</p>
${view.error ? html`<div class="error" role="alert" id="consent-error">${view.error}</div>` : ''}
${view.closedOrganizations?.length ? closedOrganizationsNote(view.closedOrganizations) : ''}
${view.projectSearch ? projectSearchForm(view.projectSearch) : ''}
<form method="post" action="/api/agent/oauth/authorize">
<input type="hidden" name="request_id" value="${view.requestId}">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
${hasProjects || mayCreate
  ? html`${mayCreate
    ? newProjectFields(view)
    : html`<fieldset>
<legend>Project it may work on (pick one)</legend>
${view.groups.length === 0 && view.projectSearch?.query
  ? html`<p class="empty" id="consent-no-match">No project’s name contains “${view.projectSearch.query}”.</p>`
  : ''}
${view.groups.map(
  (group) => html`<fieldset>
<legend>${group.organizationName}</legend>
${group.projects.map(
  (project) => html`<label class="choice"><input type="radio" name="project_id" value="${project.id}" required${
    project.id === view.selectedProjectId || onlyOne ? html` checked` : ''
  }><span>${project.name}</span></label>`,
)}
${group.moreHref || group.firstHref
  ? html`<p class="inline">${group.firstHref ? html`<a href="${group.firstHref}">First matches</a> ` : ''}${
      group.moreHref ? html`<a href="${group.moreHref}" rel="next">More projects of ${group.organizationName}</a>` : ''
    }</p>`
  : ''}
</fieldset>`,
)}
</fieldset>`}
${view.refusedOrganizations?.length
  ? html`<p class="muted" id="consent-refused-organizations">Not offered: the projects of ${view.refusedOrganizations.join(', ')}, whose administrators do not allow this application.</p>`
  : ''}
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
  : view.refusedOrganizations?.length
  ? html`<p id="consent-no-admitting-organization">None of your organisations allows this application to connect (${view.refusedOrganizations.join(', ')}): their administrators decide which applications may. Ask one of them, or deny.</p>
<div class="actions"><button type="submit" name="decision" value="deny">Deny</button></div>`
  : html`<p>You are not a member of any organisation with a project, so there is nothing to connect yet. Create a project in your organisation (or ask an administrator to add you to one), then connect the application again.</p>
<div class="actions"><button type="submit" name="decision" value="deny">Deny</button></div>`}
</form>
<p class="muted">You can disconnect the application at any time; it never sees your password.</p>
</div>`,
  );
}

/** The person's organisations this session does not open, and the sign-in each needs. */
function closedOrganizationsNote(closed: NonNullable<ConsentView['closedOrganizations']>): SafeHtml {
  return html`<div class="warning" role="note" id="consent-closed-organizations"><p>Not offered: the projects of organisations this session does not open.</p>
<ul>${closed.map((o) =>
    o.refusal === 'sso_required'
      ? html`<li><strong>${o.name}</strong> requires single sign-on: <a href="${o.signInHref}">sign in with single sign-on</a> to give access to its projects.</li>`
      : html`<li><strong>${o.name}</strong> was joined after this session began: <a href="${o.signInHref}">sign in again</a> to give access to its projects.</li>`,
  )}</ul></div>`;
}

/**
 * The project search: a GET form (no script) to the authorize URL with the original request's
 * parameters, so the answer is this page again, offering the projects whose name contains the text.
 */
function projectSearchForm(search: NonNullable<ConsentView['projectSearch']>): SafeHtml {
  return html`<form method="get" action="${search.action}" role="search" id="consent-project-search">
${search.hidden.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<label for="consent-project-query">Search projects by name</label>
<input type="search" id="consent-project-query" name="project_query" value="${search.query}" maxlength="${String(PROJECT_NAME_MAX_LENGTH)}">
<button type="submit">Search</button>
</form>`;
}

/** No project to offer: the "Project name" of a project created when the person approves (in the one organisation, or the one they pick). */
function newProjectFields(view: ConsentView): SafeHtml {
  const organizations = view.createIn ?? [];
  const chosen = view.newProject?.organizationId ?? organizations[0]?.id;
  const error = view.newProject?.error;
  return html`<fieldset>
<legend>Project it may work on</legend>
<p id="new-project-hint">There is no project to give it yet: name one, and it is created${
    organizations.length === 1 ? html` in <strong>${organizations[0].name}</strong>` : ''
  } when you approve.</p>
${organizations.length === 1
  ? html`<input type="hidden" name="new_project_organization" value="${organizations[0].id}">`
  : html`<label for="new-project-organization">Organisation</label>
<select id="new-project-organization" name="new_project_organization">${organizations.map(
      (o) => html`<option value="${o.id}"${o.id === chosen ? html` selected` : ''}>${o.name}</option>`,
    )}</select>`}
<label for="project-name">Project name</label>
${error ? html`<p class="field-error" id="project-name-error">${error}</p>` : ''}
<input type="text" id="project-name" name="new_project_name" maxlength="${PROJECT_NAME_MAX_LENGTH}" required value="${view.newProject?.name ?? ''}" aria-describedby="${
    error ? 'new-project-hint project-name-error' : 'new-project-hint'
  }"${error ? html` aria-invalid="true"` : ''}>
</fieldset>`;
}
