import { PASSWORD_MIN_LENGTH } from '@app/people';
import { html, HtmlPage } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, sectionPath } from '../views/layout';
import { when } from '../views/when';
import { ACTIONS_HEADER, dataTable } from '../views/table';

export interface AccountView {
  /** The id of the session showing the page. */
  currentSessionId: string;
  /** The person's sessions that still work, newest first. */
  sessions: { id: string; createdAt: Date; expiresAt: Date; userAgent: string | null; ip: string | null }[];
  errors?: { currentPassword?: string; newPassword?: string };
  notice?: string;
}

/** "Your account": who you are, your organisations with your role, your sessions, and the password change. */
export function accountPage(ctx: DashboardContext, view: AccountView): HtmlPage {
  const errors = view.errors ?? {};
  const field = (id: 'currentPassword' | 'newPassword', label: string, autocomplete: string, hint?: string) => {
    const error = errors[id];
    const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
    return html`<label for="${id}">${label}</label>
${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}
<input type="password" id="${id}" name="${id}" autocomplete="${autocomplete}" required maxlength="1024"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${
      error ? html` aria-invalid="true"` : ''
    }>`;
  };
  return dashboardPage(ctx, {
    title: 'Your account',
    notice: view.notice,
    body: html`<h1>Your account</h1>
<p>${ctx.user.name} (${ctx.user.email})</p>
<section aria-labelledby="orgs-heading">
<h2 id="orgs-heading">Your organisations</h2>
${
  ctx.organizations.length
    ? dataTable(
        'Your organisations',
        ['Organisation', 'Your role'],
        ctx.organizations.map((o) => html`<tr><td><a href="${sectionPath(o.id, 'projects')}">${o.name}</a></td><td>${o.role === 'admin' ? 'Admin' : 'Member'}</td></tr>`),
      )
    : html`<p class="muted">You are not a member of any organisation yet: open an invitation link from an administrator.</p>`
}
</section>
<section aria-labelledby="sessions-heading">
<h2 id="sessions-heading">Your sessions</h2>
${dataTable(
  'Your sessions',
  ['Browser or client', 'Address', 'Signed in', 'Works until', ACTIONS_HEADER],
  view.sessions.map(
    (s) =>
      html`<tr${s.id === view.currentSessionId ? html` aria-current="true"` : ''}><td>${s.userAgent ?? html`<span class="muted">Unknown</span>`}${
        s.id === view.currentSessionId ? html`<br><strong>This browser (the session you are using now)</strong>` : ''
      }</td><td>${s.ip ?? html`<span class="muted">Unknown</span>`}</td><td>${when(s.createdAt)}</td><td>${when(s.expiresAt)}</td><td><form method="post" action="/account/sessions/${s.id}/sign-out">${csrfField(ctx)}<button type="submit">Sign out</button></form></td></tr>`,
  ),
)}
<p class="hint">Your sessions that still work, newest first (at most 50). To end them all, use "Sign out everywhere" (this one included), or change your password below (this session stays signed in).</p>
<form method="post" action="/sign-out-everywhere">${csrfField(ctx)}<button type="submit">Sign out everywhere</button></form>
</section>
<section class="card" aria-labelledby="password-heading">
<h2 id="password-heading">Change your password</h2>
<p class="hint">Every other session of yours (other browsers, REST clients using a session) ends; this one stays signed in.</p>
<form method="post" action="/account/password" novalidate>
${csrfField(ctx)}
${field('currentPassword', 'Current password', 'current-password')}
${field('newPassword', 'New password', 'new-password', `At least ${PASSWORD_MIN_LENGTH} characters.`)}
<div class="actions"><button type="submit" class="primary">Change password</button></div>
</form>
</section>`,
  });
}
