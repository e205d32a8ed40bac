import type { SessionReachRefusal } from '@app/people';
import { MembershipRole, roleSatisfies } from '@app/tenancy';
import { html, HtmlPage, page, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';

/** The dashboard's sections, in navigation order, with the least role that sees each. */
export const SECTIONS = [
  { id: 'projects', label: 'Projects', path: 'projects', minRole: 'member' },
  { id: 'service-keys', label: 'Service keys', path: 'service-keys', minRole: 'admin' },
  { id: 'api-keys', label: 'API keys', path: 'api-keys', minRole: 'admin' },
  { id: 'clients', label: 'Connected clients', path: 'clients', minRole: 'member' },
  { id: 'members', label: 'Members', path: 'members', minRole: 'admin' },
  { id: 'audit', label: 'Audit log', path: 'audit', minRole: 'admin' },
  { id: 'single-sign-on', label: 'Single sign-on', path: 'single-sign-on', minRole: 'admin' },
  { id: 'scim-tokens', label: 'SCIM tokens', path: 'scim-tokens', minRole: 'admin' },
  { id: 'policy', label: 'Policy', path: 'policy', minRole: 'admin' },
  { id: 'approvals', label: 'Approvals', path: 'approvals', minRole: 'member' },
] as const satisfies readonly { id: string; label: string; path: string; minRole: MembershipRole }[];

export type Section = (typeof SECTIONS)[number]['id'];

/** The path of a section of an organisation: `/orgs/<id>/<section>`. */
export function sectionPath(orgId: string, section: Section): string {
  return `/orgs/${orgId}/${SECTIONS.find((s) => s.id === section)!.path}`;
}

/** The hidden CSRF field every dashboard form carries. */
export function csrfField(ctx: DashboardContext): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${ctx.csrf}">`;
}

/** A form with one button that posts to `action` (revoke, delete, withdraw…). */
export function postButton(ctx: DashboardContext, action: string, label: string, options: { danger?: boolean; name?: string } = {}): SafeHtml {
  return html`<form method="post" action="${action}">${csrfField(ctx)}<button type="submit"${options.danger ? html` class="danger"` : ''}${options.name ? html` aria-label="${label} ${options.name}"` : ''}>${label}</button></form>`;
}

/**
 * A secret shown once: a read-only field (select-all on focus: the fallback where the Clipboard
 * API is unavailable) and a Copy button that the dashboard's script reveals and runs.
 */
export function secretField(id: string, label: string, value: string, hint?: string): SafeHtml {
  return html`<label for="${id}">${label}</label>
${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
<div class="secret"><input type="text" id="${id}" value="${value}" readonly data-select-all autocomplete="off" spellcheck="false"${hint ? html` aria-describedby="${id}-hint"` : ''}>
<button type="button" data-copy="${id}" hidden>Copy</button></div>
<p class="muted" role="status" aria-live="polite" data-copy-status="${id}"></p>`;
}

/** A snippet to paste (a command or a config file), copyable like a secret. */
export function snippetField(id: string, label: string, value: string): SafeHtml {
  return html`<label for="${id}">${label}</label>
<textarea id="${id}" rows="${Math.min(12, value.split('\n').length + 1)}" readonly data-select-all spellcheck="false">${value}</textarea>
<div class="actions"><button type="button" data-copy="${id}" hidden>Copy</button></div>
<p class="muted" role="status" aria-live="polite" data-copy-status="${id}"></p>`;
}

/** Keyset pagination links: "Next page" when there is more, "First page" when not on the first. */
export function pager(basePath: string, nextCursor: string | null | undefined, onFirstPage: boolean, extra: Record<string, string> = {}): SafeHtml {
  const link = (cursor?: string) => {
    const query = new URLSearchParams({ ...extra, ...(cursor ? { cursor } : {}) }).toString();
    return query ? `${basePath}?${query}` : basePath;
  };
  if (!nextCursor && onFirstPage) return html``;
  return html`<nav class="pager" aria-label="Pages">${onFirstPage ? '' : html`<a href="${link()}">First page</a>`}${nextCursor ? html`<a href="${link(nextCursor)}" rel="next">Next page</a>` : ''}</nav>`;
}

export interface DashboardView {
  title: string;
  section?: Section;
  body: SafeHtml;
  /** A one-line confirmation of what the last form did. */
  notice?: string;
}

/**
 * Every dashboard page: the top bar (the organisation switcher, who is signed in, sign-out), the
 * sections the person's role may use, then the page. One layout, one stylesheet, one script file.
 */
export function dashboardPage(ctx: DashboardContext, view: DashboardView): HtmlPage {
  const current = ctx.organization;
  return page(view.title, html`${view.notice ? html`<div class="notice" role="status">${view.notice}</div>` : ''}${view.body}`, {
    script: true,
    wide: true,
    header: html`<header class="topbar">
<a class="brand" href="/">Agent Gateway</a>
${organizationSwitcher(ctx)}
<div class="inline">
<span class="muted">${ctx.user.name} (${ctx.user.email})</span>
<a href="/account">Your account</a>
<form method="post" action="/sign-out">${csrfField(ctx)}<button type="submit">Sign out</button></form>
<form method="post" action="/sign-out-everywhere">${csrfField(ctx)}<button type="submit">Sign out everywhere</button></form>
</div>
</header>
${current
  ? html`<nav class="sections" aria-label="Sections">${SECTIONS.filter((s) => roleSatisfies(current.role, s.minRole)).map(
      (s) => html`<a href="${sectionPath(current.id, s.id)}"${s.id === view.section ? html` aria-current="page"` : ''}>${s.label}</a>`,
    )}</nav>`
  : ''}`,
  });
}

function organizationSwitcher(ctx: DashboardContext): SafeHtml {
  const current = ctx.organization;
  if (ctx.organizations.length + ctx.closedOrganizations.length <= 1) return current ? html`<span>${current.name}</span>` : html``;
  return html`<details>
<summary>${current ? html`Organisation: ${current.name}` : 'Choose an organisation'}</summary>
<ul aria-label="Organisations">${ctx.organizations.map((o) =>
    o.id === current?.id
      ? html`<li><span aria-current="true">${o.name} (${o.role})</span></li>`
      : html`<li><a href="/orgs/${o.id}/projects">${o.name} (${o.role})</a></li>`,
  )}${ctx.closedOrganizations.map(
    (o) => html`<li><a href="/orgs/${o.id}/projects">${o.name} (${closedOrganizationNote(o.refusal)})</a></li>`,
  )}</ul>
</details>`;
}

/** How the switcher and the home page name an organisation this session does not open. */
export function closedOrganizationNote(refusal: SessionReachRefusal): string {
  return refusal === 'sso_required' ? 'needs single sign-on' : 'needs another sign-in';
}
