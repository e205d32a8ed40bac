import type { ProjectDto } from '@app/projects';
import { STANDARD_SSO_SCOPES, type ClaimedDomainView, type IdentityProviderView } from '@app/identity';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, sectionPath } from '../views/layout';
import { pickerPager, pickerSearch } from '../views/picker';
import { ACTIONS_HEADER, dataTable } from '../views/table';
import { when } from '../views/when';
import { redirectUriCard, type RedirectUriView } from './redirect-uri.view';

import { DEFAULT_SUBMIT, described, fieldError, settingsCard, ssoPath, type SettingsForm } from './single-sign-on-settings.view';

export { settingsFormOf, ssoPath, type SettingsField, type SettingsForm } from './single-sign-on-settings.view';

/** The fields of the ID-JAG form an error can stand next to. */
export type IdJagField = 'acceptIdJag' | 'idJagClients' | 'form';

/** The ID-JAG form as shown. */
export interface IdJagForm {
  acceptIdJag: boolean;
  clients: { clientId: string; projectId: string }[];
  errors: Partial<Record<IdJagField, string>>;
}

/** The project picker of the ID-JAG rows: one page of the matches of its search, plus the projects rows have chosen. */
export interface ProjectChoices {
  projects: ProjectDto[];
  query: string;
  nextCursor: string | null;
  onFirstPage: boolean;
}

export interface SingleSignOnView {
  settings: IdentityProviderView | null;
  form: SettingsForm;
  idJag: IdJagForm;
  choices: ProjectChoices;
  /** Names of the projects the stored rows point at (a row's project stays shown when not on the picker's page). */
  projectNames: Map<string, string>;
  redirectUris: RedirectUriView;
  notice?: string;
  /** A refused verification, next to its domain. */
  domainError?: { domain: string; message: string };
}

/** The picker's query parameters in the page's address. */
export const SSO_PROJECT_PICKER = { query: 'projectQuery', cursor: 'projectCursor' } as const;

export function idJagFormOf(settings: IdentityProviderView | null): IdJagForm {
  return {
    acceptIdJag: settings?.acceptIdJag ?? false,
    clients: settings?.idJagClients.map((c) => ({ clientId: c.clientId, projectId: c.projectId ?? '' })) ?? [],
    errors: {},
  };
}

/** The organisation's identity provider: what it is connected to, its domains, its settings. */
export function singleSignOnPage(ctx: DashboardContext, view: SingleSignOnView): HtmlPage {
  const orgId = ctx.organization!.id;
  const { settings } = view;
  return dashboardPage(ctx, {
    title: 'Single sign-on',
    section: 'single-sign-on',
    notice: view.notice,
    body: html`<h1>Single sign-on</h1>
<p class="muted">People whose email address is in one of this organisation's verified domains sign in through your company's OpenID Connect identity provider. Step-by-step set-ups for Okta, Microsoft Entra ID and Google Workspace are in the gateway's docs/sso.md.</p>
${redirectUriCard(ctx, settings, view.redirectUris)}
${settings ? connectionCard(settings) : ''}
${settings ? domainsCard(ctx, settings, view.domainError) : ''}
${settingsCard(ctx, settings, view.form, view.redirectUris.redirectUri)}
${settings ? idJagCard(ctx, settings, view) : ''}
${settings ? html`<section class="card" aria-labelledby="sso-remove-title"><h2 id="sso-remove-title">Disconnect</h2>
<p>Stops single sign-on for this organisation and drops its domain claims. Accounts and memberships stay; people without a password then need a password-reset link to sign in.</p>
<p><a href="${ssoPath(orgId)}/remove">Disconnect the identity provider</a></p></section>` : ''}`,
  });
}

function connectionCard(settings: IdentityProviderView): SafeHtml {
  const d = settings.discovery;
  return html`<section class="card" aria-labelledby="sso-connection-title">
<h2 id="sso-connection-title">Connected identity provider</h2>
<dl>
<dt>Issuer</dt><dd><code>${settings.issuer}</code></dd>
<dt>Scopes asked for at sign-in</dt><dd><code>${[...STANDARD_SSO_SCOPES, ...settings.scopes].join(' ')}</code></dd>
<dt>First sign-in of an admin through it</dt><dd>${when(settings.adminSignedInAt, 'Not yet')}</dd>
${settings.groupsClaim ? html`<dt>Groups claim in the last ID token</dt><dd id="sso-groups-claim-seen">${groupsClaimSeen(settings)}</dd>` : ''}
</dl>
${d
  ? html`<h3>What its discovery document said (${when(d.fetchedAt)})</h3>
<dl>
<dt>Authorization endpoint</dt><dd><code>${d.authorizationEndpoint}</code></dd>
<dt>Token endpoint</dt><dd><code>${d.tokenEndpoint}</code></dd>
<dt>Key set</dt><dd><code>${d.jwksUri}</code> (${d.signingKeys === 1 ? '1 signing key' : `${d.signingKeys} signing keys`})</dd>
<dt>PKCE</dt><dd>${d.pkceAdvertised ? d.codeChallengeMethods.join(', ') : 'not advertised (sign-in sends S256 anyway)'}</dd>
<dt>ID token signatures</dt><dd>${d.signingAlgorithms.length ? d.signingAlgorithms.join(', ') : 'not advertised'}</dd>
</dl>`
  : ''}
</section>`;
}

/** Whether the last ID token carried the groups claim: without it, nobody's role follows the mappings. */
function groupsClaimSeen(settings: IdentityProviderView): SafeHtml {
  const last = settings.lastIdToken;
  if (!last) return html`<span class="muted">No sign-in through the identity provider since its settings last changed: sign in once to check that <code>${settings.groupsClaim}</code> arrives.</span>`;
  if (settings.groupsClaimInLastIdToken) return html`Carried: the ID token of the last sign-in (${when(last.receivedAt)}) had <code>${settings.groupsClaim}</code>.`;
  return html`<strong>Missing:</strong> the ID token of the last sign-in (${when(last.receivedAt)}) had no <code>${settings.groupsClaim}</code> claim, so nobody's role follows the mappings. Many identity providers send groups only when asked for a scope (add it under Extra scopes, such as <code>groups</code>) or once a groups claim is set up for this application. Claims it had: ${last.claims.join(', ')}.`;
}

function domainsCard(ctx: DashboardContext, settings: IdentityProviderView, domainError?: { domain: string; message: string }): SafeHtml {
  const orgId = ctx.organization!.id;
  const rows = settings.domains.map((d) => domainRow(ctx, orgId, d, domainError?.domain === d.domain ? domainError.message : undefined));
  return html`<section class="card" aria-labelledby="sso-domains-title">
<h2 id="sso-domains-title">Email domains</h2>
<p class="muted">A domain counts once verified: only its addresses are offered single sign-on, get an account at their first sign-in or can be provisioned. To verify one, publish its TXT record in the domain's DNS, then press Verify. Add or remove domains in the settings below.</p>
${settings.domains.length
  ? dataTable('Email domains', ['Domain', 'State', 'TXT record to publish', ACTIONS_HEADER], rows)
  : html`<div class="empty"><p><strong>No domain claimed yet.</strong> Add your people's email domains in the settings below.</p></div>`}
</section>`;
}

function domainRow(ctx: DashboardContext, orgId: string, d: ClaimedDomainView, error?: string): SafeHtml {
  const id = `domain-${d.domain.replace(/[^a-z0-9-]/g, '-')}`;
  return html`<tr id="${id}">
<td>${d.domain}</td>
<td>${d.status === 'verified' ? html`Verified ${when(d.verifiedAt)}` : html`<strong>Pending</strong>`}</td>
<td>${d.status === 'verified' ? html`<span class="muted">(published)</span>` : html`<code>${d.txtRecord.name}</code> TXT <code>${d.txtRecord.value}</code>`}
${error ? html`<p class="field-error" role="alert" id="${id}-error">${error}</p>` : ''}</td>
<td>${d.status === 'pending'
    ? html`<form method="post" action="${ssoPath(orgId)}/domains/${encodeURIComponent(d.domain)}/verify">${csrfField(ctx)}<button type="submit" aria-label="Verify ${d.domain}">Verify</button></form>`
    : ''}</td>
</tr>`;
}


function idJagCard(ctx: DashboardContext, settings: IdentityProviderView, view: SingleSignOnView): SafeHtml {
  const orgId = ctx.organization!.id;
  const form = view.idJag;
  const { errors } = form;
  const { choices } = view;
  const canAccept = settings.adminSignedInAt !== null;
  const rows = [...form.clients];
  if (!rows.some((r) => r.clientId === '')) rows.push({ clientId: '', projectId: '' });
  return html`<section class="card" aria-labelledby="sso-id-jag-title">
<h2 id="sso-id-jag-title">AI clients authorised by the identity provider (ID-JAG)</h2>
<p class="muted">Enterprise AI clients can trade an identity assertion from this identity provider for a gateway token, with no consent screen. Each client needs a row below: the <code>client_id</code> of an organisation client made on Connected clients, and the project its tokens open. The organisation's client policy still applies.</p>
${pickerSearch({
  action: ssoPath(orgId),
  id: 'sso-project-query',
  name: SSO_PROJECT_PICKER.query,
  label: 'Search projects by name',
  value: choices.query,
})}
${choices.query ? html`<p class="hint">The project lists below show the projects whose name contains “${choices.query}” (and the ones already chosen).</p>` : ''}
${errors.form ? html`<p class="error" role="alert" id="sso-id-jag-form-error">${errors.form}</p>` : ''}
<form method="post" action="${ssoPath(orgId)}/id-jag" novalidate>
${csrfField(ctx)}
${DEFAULT_SUBMIT}
<fieldset>
<legend>Accept ID-JAG</legend>
<label class="choice"><input type="checkbox" id="sso-accept-id-jag" name="acceptIdJag" value="true" aria-describedby="sso-accept-desc${errors.acceptIdJag ? ' sso-accept-error' : ''}"${
    form.acceptIdJag ? html` checked` : ''
  }${canAccept || form.acceptIdJag ? '' : html` disabled`}><span>Accept identity assertions (ID-JAG) from this identity provider<span class="desc" id="sso-accept-desc">${
    canAccept
      ? html`An admin of this organisation signed in through it ${when(settings.adminSignedInAt)}, so it can be switched on.`
      : 'It can be switched on only after an admin of this organisation has signed in through this identity provider once (sign out, then sign in with single sign-on).'
  }</span></span></label>
${fieldError('sso-accept', errors.acceptIdJag)}
</fieldset>
<fieldset${errors.idJagClients ? html` aria-describedby="sso-clients-error"` : ''}>
<legend>Clients and their projects</legend>
<p class="hint">A client without a project is refused until one is chosen. Empty rows are ignored.</p>
${fieldError('sso-clients', errors.idJagClients)}
${dataTable('AI clients and their projects', ['Client ID', 'Project', 'Remove'], rows.map((c, i) => clientRow(c, i, choices, view.projectNames)))}
${pickerPager({
  basePath: ssoPath(orgId),
  params: { [SSO_PROJECT_PICKER.query]: choices.query },
  cursorName: SSO_PROJECT_PICKER.cursor,
  nextCursor: choices.nextCursor,
  onFirstPage: choices.onFirstPage,
  what: 'projects',
})}
<div class="actions"><button type="submit" name="add" value="client">Add a client row</button></div>
</fieldset>
<div class="actions"><button type="submit" class="primary">Save AI clients</button></div>
</form>
</section>`;
}

function clientRow(c: { clientId: string; projectId: string }, i: number, choices: ProjectChoices, names: Map<string, string>): SafeHtml {
  const n = i + 1;
  const offered = choices.projects.some((p) => p.id === c.projectId);
  return html`<tr>
<td><label class="visually-hidden" for="sso-client-id-${n}">Client ID of client ${n}</label><input type="text" id="sso-client-id-${n}" name="idJagClientId" value="${c.clientId}" autocomplete="off" spellcheck="false"></td>
<td><label class="visually-hidden" for="sso-client-project-${n}">Project of client ${n}</label><select id="sso-client-project-${n}" name="idJagProject">
<option value="">No project yet (refused)</option>
${c.projectId && !offered ? html`<option value="${c.projectId}" selected>${names.get(c.projectId) ?? 'A deleted project'}</option>` : ''}
${choices.projects.map((p) => html`<option value="${p.id}"${p.id === c.projectId ? html` selected` : ''}>${p.name}</option>`)}
</select></td>
<td><label class="choice"><input type="checkbox" name="idJagRemove" value="${String(i)}"><span>Remove<span class="visually-hidden"> client ${n}</span></span></label></td>
</tr>`;
}

/** Before disconnecting: what ends. */
export function removeConnectionPage(ctx: DashboardContext, settings: IdentityProviderView): HtmlPage {
  const orgId = ctx.organization!.id;
  const verified = settings.domains.filter((d) => d.status === 'verified').length;
  return dashboardPage(ctx, {
    title: 'Disconnect the identity provider?',
    section: 'single-sign-on',
    body: html`<div class="card">
<h1>Disconnect ${settings.issuer}?</h1>
<p>From the next sign-in:</p>
<ul>
<li>nobody signs in to this organisation through this identity provider, and sessions opened through it no longer open it;</li>
<li>its ${settings.domains.length === 1 ? 'domain claim is' : `${settings.domains.length} domain claims are`} dropped (${verified} verified): to connect again, the domains must be verified again;</li>
<li>"require single sign-on" and ID-JAG acceptance end with it.</li>
</ul>
<p>Accounts, memberships, projects and the audit log stay. People who have no password sign in again with a password-reset link from Members.</p>
<form method="post" action="${ssoPath(orgId)}/remove">${csrfField(ctx)}
<div class="actions"><a href="${ssoPath(orgId)}">Cancel</a><button type="submit" class="danger primary">Disconnect</button></div>
</form>
</div>`,
  });
}
