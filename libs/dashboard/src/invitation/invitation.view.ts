import { html, HtmlPage } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, sectionPath } from '../views/layout';

export interface InvitationView {
  token: string;
  organizationId: string;
  organizationName: string;
  role: string;
  /** The email the invitation was made for. */
  email: string;
  alreadyMember: boolean;
  /** The signed-in account's email is not the invited one: nothing to accept here. */
  forAnotherEmail: boolean;
}

/**
 * An invitation opened by a signed-in person: the organisation and the role, then either the
 * "Accept" button (a CSRF-checked post), or why there is nothing to accept as this account.
 */
export function invitationPage(ctx: DashboardContext, view: InvitationView): HtmlPage {
  const title = `Join ${view.organizationName}`;
  let body;
  if (view.alreadyMember) {
    body = html`<p>You are already a member of <strong>${view.organizationName}</strong>. <a href="${sectionPath(view.organizationId, 'projects')}">Open it</a>.</p>`;
  } else if (view.forAnotherEmail) {
    body = html`<div class="summary" role="alert" id="another-email">
<h2>This invitation is for another email</h2>
<p>It was sent to <strong>${view.email}</strong>, and you are signed in as <strong>${ctx.user.email}</strong>. It cannot be accepted with this account.</p>
<p>Sign out, then open the invitation link again and sign in (or create an account) with ${view.email}. If ${ctx.user.email} is the right account, ask the person who invited you for an invitation to it.</p>
</div>
<form method="post" action="/sign-out">${csrfField(ctx)}<button type="submit">Sign out</button></form>`;
  } else {
    body = html`<p>You are signed in as <strong>${ctx.user.name}</strong> (${ctx.user.email}).</p>
<form method="post" action="/invitation/accept">${csrfField(ctx)}<input type="hidden" name="token" value="${view.token}">
<div class="actions"><button type="submit" class="primary">Accept and join ${view.organizationName}</button> <a href="/">Not now</a></div>
</form>`;
  }
  return dashboardPage(ctx, {
    title,
    body: html`<div class="card"><h1>${title}</h1>
<p id="invitation-summary">You are invited to join <strong>${view.organizationName}</strong> as <strong>${view.role}</strong>.</p>
${body}</div>`,
  });
}

/** An unknown, used, withdrawn or expired link (one answer for all). */
export function invitationGonePage(ctx: DashboardContext): HtmlPage {
  return dashboardPage(ctx, {
    title: 'This invitation no longer works',
    body: html`<div class="card"><h1>This invitation no longer works</h1>
<p>An invitation link works once and for seven days, and an administrator may withdraw it. Ask the person who invited you for a new one.</p></div>`,
  });
}
