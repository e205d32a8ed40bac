import type { ClientPolicyDto, OrganizationClientDto, OrganizationGrantView } from '@app/oauth';
import { organizationClientsTable } from './organization-client.view';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, pager, sectionPath } from '../views/layout';
import { when } from '../views/when';
import { ACTIONS_HEADER, dataTable } from '../views/table';

export interface ClientsListView {
  grants: OrganizationGrantView[];
  nextCursor: string | null;
  onFirstPage: boolean;
  /** Admins see every grant of the organisation (and who consented), and the client policy. */
  admin: boolean;
  policy?: ClientPolicyDto;
  /** Admins see the organisation's own clients (SPEC §10). */
  organizationClients?: (OrganizationClientDto & { createdByName: string | null })[];
  /** Where AI clients connect: the MCP endpoint's URL. */
  mcpUrl: string;
  notice?: string;
}

/** Connected clients: every OAuth grant of the organisation (a member's own only), newest first. */
export function clientsPage(ctx: DashboardContext, view: ClientsListView): HtmlPage {
  const orgId = ctx.organization!.id;
  const base = sectionPath(orgId, 'clients');
  const empty = view.grants.length === 0 && view.onFirstPage;
  return dashboardPage(ctx, {
    title: 'Connected clients',
    section: 'clients',
    notice: view.notice,
    body: html`<h1>Connected clients</h1>
<p class="muted">AI applications (Claude, VS Code, Cursor…) connected to this organisation's projects through a person's consent. ${
      view.admin ? 'You see every connection in the organisation and may disconnect any.' : 'You see the ones you connected and may disconnect them.'
    } Disconnecting refuses the client's tokens at once.</p>
${view.admin && view.policy ? policySummary(orgId, view.policy) : ''}
${view.admin && view.organizationClients ? organizationClientsTable(ctx, view.organizationClients) : ''}
${empty
  ? html`<div class="empty"><p><strong>${view.admin ? 'No AI client is connected to this organisation yet.' : 'You have not connected an AI client to this organisation yet.'}</strong>
To connect one, add the MCP server <code>${view.mcpUrl}</code> to the client: it sends you here to sign in, pick a project and choose what it may do.</p></div>`
  : dataTable(
      `Connected clients of ${ctx.organization!.name}, newest first`,
      ['Client', 'Project', 'Permissions', view.admin && 'Consented by', 'Connected', 'Last used', ACTIONS_HEADER],
      view.grants.map((g) => grantRow(base, g, view.admin)),
    )}
${pager(base, view.nextCursor, view.onFirstPage)}`,
  });
}

function grantRow(base: string, grant: OrganizationGrantView, admin: boolean): SafeHtml {
  return html`<tr>
<td>${clientName(grant)}</td>
<td>${grant.project.name}</td>
<td>${codeList(grant.permissions)}</td>
${admin ? html`<td>${grant.user ? html`${grant.user.name}<br><span class="muted">${grant.user.email}</span>` : html`<span class="muted">A deleted account</span>`}</td>` : ''}
<td>${when(grant.createdAt)}</td>
<td>${when(grant.lastUsedAt)}</td>
<td><a href="${base}/${grant.id}/disconnect" aria-label="Disconnect ${grant.client.name} from ${grant.project.name}">Disconnect</a></td>
</tr>`;
}

/** The client's name, the host it answers to (its client_id URL's host, or its redirect URIs' hosts) and, for an ID-JAG's grant, its identity provider. */
function clientName(grant: OrganizationGrantView): SafeHtml {
  const kind = grant.client.kind === 'metadata_document' ? 'identified by' : 'answers at';
  // An organisation's client for ID-JAGs has no redirect URI: nothing to say it answers at.
  const where = grant.client.hosts.length
    ? html`${kind} ${codeList(grant.client.hosts)}`
    : html`an organisation client: no redirect, it gets its tokens at the token endpoint`;
  const via = grant.identityProvider ? html`<br><span class="muted">via the identity provider <code>${grant.identityProvider.issuer}</code> (ID-JAG)</span>` : '';
  return html`<strong>${grant.client.name}</strong><br><span class="muted">${where}</span>${via}`;
}

function policySummary(orgId: string, policy: ClientPolicyDto): SafeHtml {
  const text =
    policy.mode === 'any'
      ? 'any AI client may connect.'
      : `only ${[
          policy.allowedHosts.length ? `clients identified by ${policy.allowedHosts.join(', ')}` : '',
          policy.allowRegisteredClients ? 'registered clients' : '',
        ]
          .filter(Boolean)
          .join(' and ') || 'no client at all'} may connect.`;
  return html`<p id="client-policy-summary">Client policy: ${text} <a href="${sectionPath(orgId, 'clients')}/policy">Change which clients may connect</a></p>`;
}

/** Asks before disconnecting: which client, where, and what ends. */
export function disconnectPage(ctx: DashboardContext, grant: OrganizationGrantView & { liveAccessTokens: number }, own: boolean): HtmlPage {
  const base = sectionPath(ctx.organization!.id, 'clients');
  const tokens = grant.liveAccessTokens === 1 ? '1 access token that still works' : `${grant.liveAccessTokens} access tokens that still work`;
  return dashboardPage(ctx, {
    title: `Disconnect ${grant.client.name}?`,
    section: 'clients',
    body: html`<div class="card">
<h1>Disconnect ${grant.client.name} from ${grant.project.name}?</h1>
<p>${clientName(grant)}</p>
<p>This ends 1 connection${own ? '' : grant.user ? html` that ${grant.user.name} (${grant.user.email}) made` : ''}: its ${tokens} and its refresh tokens stop working at once, so the client's next request is refused. To use it again, a person must connect it and consent again.</p>
<p>Permissions it had: ${codeList(grant.permissions)}. Connected ${when(grant.createdAt)}.</p>
<form method="post" action="${base}/${grant.id}/disconnect">${csrfField(ctx)}
<div class="actions"><a href="${base}">Cancel</a><button type="submit" class="danger primary">Disconnect</button></div>
</form>
</div>`,
  });
}

export function codeList(names: readonly string[]): SafeHtml {
  return html`${names.map((name, i) => html`${i ? ', ' : ''}<code>${name}</code>`)}`;
}
