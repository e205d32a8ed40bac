import type { Invitation, Member } from '@app/people';
import { MEMBERSHIP_ROLES, MembershipRole } from '@app/tenancy';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, pager, postButton, sectionPath } from '../views/layout';
import { when } from '../views/when';
import { dataTable, emptyState } from '../views/table';

export const ROLE_LABELS: Record<MembershipRole, string> = { admin: 'Admin', member: 'Member' };

/** The invite form's values and errors after a refused post. */
export interface InviteForm {
  email: string;
  role: string;
  errors: { email?: string; role?: string };
}

export interface MembersView {
  members: Member[];
  nextCursor: string | null;
  onFirstPage: boolean;
  invitations: Invitation[];
  invitationsNextCursor: string | null;
  invite?: InviteForm;
  /** A role change refused for one member: what was wrong, shown next to their role. */
  roleError?: { userId: string; message: string };
  /** A refusal of the whole page's last action (the last admin), shown at the top. */
  alert?: string;
  notice?: string;
}

/** Members: the people of the organisation with their roles, the invite form and the pending invitations. */
export function membersPage(ctx: DashboardContext, view: MembersView): HtmlPage {
  const org = ctx.organization!;
  const base = sectionPath(org.id, 'members');
  return dashboardPage(ctx, {
    title: 'Members',
    section: 'members',
    notice: view.notice,
    body: html`<h1>Members</h1>
${view.alert ? html`<div class="error" role="alert">${view.alert}</div>` : ''}
<p class="hint" id="role-hint">Making an admin a member revokes the API keys they created (you are asked first, and may take them over instead); the service keys they created keep working.</p>
${dataTable(
  `Members of ${org.name}`,
  ['Name', 'Email', 'Role', 'Joined', 'Actions'],
  view.members.map((m) => memberRow(ctx, base, m, view.roleError?.userId === m.userId ? view.roleError.message : undefined)),
)}
${pager(base, view.nextCursor, view.onFirstPage)}
${inviteForm(ctx, base, view.invite)}
${invitationsSection(ctx, view.invitations, view.invitationsNextCursor, true, 2)}`,
  });
}

/** The pending invitations beyond the first page, on their own page. */
export function invitationsPage(ctx: DashboardContext, view: { invitations: Invitation[]; nextCursor: string | null; onFirstPage: boolean; notice?: string }): HtmlPage {
  const base = sectionPath(ctx.organization!.id, 'members');
  return dashboardPage(ctx, {
    title: 'Pending invitations',
    section: 'members',
    notice: view.notice,
    body: html`<p><a href="${base}">Back to members</a></p>
${invitationsSection(ctx, view.invitations, view.nextCursor, view.onFirstPage, 1)}`,
  });
}

function memberRow(ctx: DashboardContext, base: string, m: Member, roleError: string | undefined): SafeHtml {
  const you = m.userId === ctx.user.id;
  const id = `role-${m.userId}`;
  const described = roleError ? `${id}-error role-hint` : 'role-hint';
  return html`<tr>
<td>${m.name}${you ? html` <span class="muted">(you)</span>` : ''}</td>
<td>${m.email}</td>
<td><form method="post" action="${base}/${m.userId}/role">${csrfField(ctx)}
<label class="visually-hidden" for="${id}">Role of ${m.name}</label>
${roleError ? html`<p class="field-error" id="${id}-error">${roleError}</p>` : ''}
<select id="${id}" name="role" aria-describedby="${described}"${roleError ? html` aria-invalid="true"` : ''}>${MEMBERSHIP_ROLES.map(
    (r) => html`<option value="${r}"${r === m.role ? html` selected` : ''}>${ROLE_LABELS[r]}</option>`,
  )}</select>
<button type="submit" aria-label="Change the role of ${m.name}">Change role</button></form></td>
<td><time datetime="${m.joinedAt}">${m.joinedAt.slice(0, 10)}</time></td>
<td>${postButton(ctx, `${base}/${m.userId}/reset-link`, 'Reset link', { name: `for ${m.name}` })}
<a href="${base}/${m.userId}/remove" aria-label="Remove ${m.name}">Remove</a></td>
</tr>`;
}

function inviteForm(ctx: DashboardContext, base: string, form: InviteForm | undefined): SafeHtml {
  const errors = form?.errors ?? {};
  const role = form?.role ?? 'member';
  return html`<section class="card" aria-labelledby="invite-heading">
<h2 id="invite-heading">Invite a person</h2>
<p class="hint" id="invite-hint">This creates an invitation link to pass on (there is no mail): it works once, for seven days, and whoever opens it joins with the role you choose, signing up or signing in. Nothing is granted until then.</p>
<form method="post" action="${base}/invitations" novalidate>
${csrfField(ctx)}
<label for="invite-email">Email</label>
${errors.email ? html`<p class="field-error" id="invite-email-error">${errors.email}</p>` : ''}
<input type="email" id="invite-email" name="email" maxlength="254" required autocomplete="off" value="${form?.email ?? ''}" aria-describedby="${errors.email ? 'invite-email-error invite-hint' : 'invite-hint'}"${errors.email ? html` aria-invalid="true"` : ''}>
<label for="invite-role">Role</label>
${errors.role ? html`<p class="field-error" id="invite-role-error">${errors.role}</p>` : ''}
<select id="invite-role" name="role"${errors.role ? html` aria-invalid="true" aria-describedby="invite-role-error"` : ''}>${MEMBERSHIP_ROLES.map(
    (r) => html`<option value="${r}"${r === role ? html` selected` : ''}>${ROLE_LABELS[r]}</option>`,
  )}</select>
<div class="actions"><button type="submit" class="primary">Invite</button></div>
</form>
</section>`;
}

/** The pending invitations: under Members (`level` 2, beside the invite form) or on their own page (1). */
function invitationsSection(ctx: DashboardContext, invitations: Invitation[], nextCursor: string | null, onFirstPage: boolean, level: 1 | 2): SafeHtml {
  const base = sectionPath(ctx.organization!.id, 'members');
  const heading = level === 1 ? html`<h1 id="pending-heading">Pending invitations</h1>` : html`<h2 id="pending-heading">Pending invitations</h2>`;
  return html`<section aria-labelledby="pending-heading">
${heading}
${invitations.length === 0
  ? emptyState(
      'No pending invitations.',
      !onFirstPage
        ? 'There are no more.'
        : level === 2
          ? 'Invite a person with the form above: their link is shown once, and the invitation waits here until it is used.'
          : html`Invite a person on the <a href="${base}">Members</a> page.`,
    )
  : dataTable(
      'Pending invitations',
      ['Email', 'Role', 'Invited', 'Link works until', 'Actions'],
      invitations.map(
        (i) => html`<tr><td>${i.email}</td><td>${ROLE_LABELS[i.role]}</td><td><time datetime="${i.createdAt}">${i.createdAt.slice(0, 10)}</time></td>
<td>${when(i.expiresAt)}</td>
<td><form method="get" action="${base}/invitations/${i.id}/withdraw"><button type="submit" aria-label="Withdraw the invitation of ${i.email}">Withdraw</button></form></td></tr>`,
      ),
    )}
${pager(`${base}/invitations`, nextCursor, onFirstPage)}
</section>`;
}
