import type { Invitation, Member } from '@app/people';
import type { MemberRemovalPreview } from '@app/credential-store';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, secretField, sectionPath } from '../views/layout';
import { when } from '../views/when';
import { ROLE_LABELS } from './members.view';

/** The answer to "Invite": the link, shown only in this response. */
export function invitationCreatedPage(ctx: DashboardContext, invitation: { email: string; role: Member['role']; expiresAt: string; link: string }): HtmlPage {
  const org = ctx.organization!;
  return dashboardPage(ctx, {
    title: 'Invitation created',
    section: 'members',
    body: html`<div class="card">
<h1>Invitation created</h1>
<p>Pass this link on to <strong>${invitation.email}</strong>. Whoever opens it joins ${org.name} as ${ROLE_LABELS[invitation.role].toLowerCase()}, signing up or signing in;
it works once, until ${when(invitation.expiresAt)}.</p>
${secretField('invitation-link', 'Invitation link', invitation.link, 'Shown only now: copy it before you leave this page. You can withdraw the invitation under Pending invitations.')}
<p><a href="${sectionPath(org.id, 'members')}">Back to members</a></p>
</div>`,
  });
}

/** The answer to "Reset link": the link, shown only in this response. */
export function resetLinkPage(ctx: DashboardContext, member: Member, issued: { link: string; expiresAt: string }): HtmlPage {
  return dashboardPage(ctx, {
    title: `Password-reset link for ${member.name}`,
    section: 'members',
    body: html`<div class="card">
<h1>Password-reset link for ${member.name}</h1>
<p>Pass this link to ${member.name} (${member.email}). It works once, until ${when(issued.expiresAt)};
using it sets a new password and signs them out everywhere.</p>
${secretField('reset-link', 'Password-reset link', issued.link, 'Shown only now: copy it before you leave this page.')}
<p><a href="${sectionPath(ctx.organization!.id, 'members')}">Back to members</a></p>
</div>`,
  });
}

/** "Withdraw": whose invitation, and that its link stops working, then the button that confirms. */
export function withdrawInvitationPage(ctx: DashboardContext, invitation: Invitation): HtmlPage {
  const org = ctx.organization!;
  const base = sectionPath(org.id, 'members');
  return dashboardPage(ctx, {
    title: `Withdraw the invitation of ${invitation.email}`,
    section: 'members',
    body: html`<div class="card">
<h1>Withdraw the invitation of ${invitation.email}?</h1>
<p>${invitation.email} was invited to ${org.name} as ${ROLE_LABELS[invitation.role].toLowerCase()} on <time datetime="${invitation.createdAt}">${invitation.createdAt.slice(0, 10)}</time>.
Once withdrawn, the invitation link no longer works: whoever opens it is told so, and nobody joins with it. You can invite them again later.</p>
<form method="post" action="${base}/invitations/${invitation.id}/withdraw">
${csrfField(ctx)}
<div class="actions"><button type="submit" class="danger primary">Withdraw the invitation</button></div>
</form>
<p><a href="${base}">Cancel</a></p>
</div>`,
  });
}

export interface RemovalView extends MemberRemovalPreview {
  member: Member;
  lastAdmin: boolean;
  /** The service's refusal of the last try (the last admin, when it changed meanwhile). */
  alert?: string;
}

/** "Remove": what ends and what stays, then the form that confirms. */
export function removeMemberPage(ctx: DashboardContext, view: RemovalView): HtmlPage {
  const org = ctx.organization!;
  const base = sectionPath(org.id, 'members');
  const { member } = view;
  const you = member.userId === ctx.user.id;
  const who = you ? 'you' : member.name;
  const they = you ? 'you' : 'they';
  return dashboardPage(ctx, {
    title: `Remove ${member.name}`,
    section: 'members',
    body: html`<div class="card">
<h1>Remove ${member.name} from ${org.name}?</h1>
<p>${member.name} (${member.email}) is ${member.role === 'admin' ? 'an admin' : 'a member'} since <time datetime="${member.joinedAt}">${member.joinedAt.slice(0, 10)}</time>.</p>
${view.alert ? html`<div class="error" role="alert">${view.alert}</div>` : ''}
${view.lastAdmin && !view.alert ? html`<div class="error" role="alert">${member.name} is the only admin of ${org.name}, which must keep one: make another member an admin first.</div>` : ''}
<h2>What ends, at once</h2>
<ul>
<li>${you ? 'Your' : 'Their'} access to ${org.name}: ${you ? 'your' : 'their'} signed-in sessions no longer open its pages or its API.</li>
<li>${
      view.connectedClients
        ? `${count(view.connectedClients, 'connected AI client', 'connected AI clients')} ${they} approved in ${org.name}: disconnected, their tokens refused.`
        : `No connected AI clients: ${they} approved none in ${org.name}.`
    }</li>
<li>${
      view.apiKeys.length
        ? html`${count(view.apiKeys.length, 'API key', 'API keys')} ${they} created${names(view.apiKeys)}: revoked${you ? '' : ', unless you take them over below'}.`
        : `No API keys: none that ${they} created is still live.`
    }</li>
</ul>
<h2>What stays</h2>
<ul>
<li>${you ? 'Your' : 'Their'} account, and ${you ? 'your' : 'their'} membership of other organisations.</li>
<li>${
      view.serviceKeys.length
        ? html`${count(view.serviceKeys.length, 'service key', 'service keys')} ${they} created${names(view.serviceKeys)}${
            view.derivedTokens ? `, and the ${count(view.derivedTokens, 'project token', 'project tokens')} derived from them` : ''
          }: they keep working, because machines use them.${
            view.derivedTokens > 0 ? html` If ${who} may know those secrets, rotate them under <a href="${sectionPath(org.id, 'service-keys')}">Service keys</a>.` : ''
          }`
        : `Service keys: ${they} created none that is still live.`
    }</li>
<li>The projects, and the audit log of everything ${who} did.</li>
</ul>
${view.lastAdmin ? html`<p><a href="${base}">Back to members</a></p>` : confirmForm(ctx, base, member, view.apiKeys.length > 0)}
</div>`,
  });
}

/** Demoting an admin who created live API keys: they end (or pass to you), then the form that confirms. */
export function demoteMemberPage(ctx: DashboardContext, view: MemberRemovalPreview & { member: Member; alert?: string }): HtmlPage {
  const org = ctx.organization!;
  const base = sectionPath(org.id, 'members');
  const { member } = view;
  return dashboardPage(ctx, {
    title: `Make ${member.name} a member`,
    section: 'members',
    body: html`<div class="card">
<h1>Make ${member.name} a member of ${org.name}?</h1>
<p>${member.name} (${member.email}) is an admin. As a member they keep their access to ${org.name}'s projects, but no longer administer it.</p>
${view.alert ? html`<div class="error" role="alert">${view.alert}</div>` : ''}
<h2>What ends, at once</h2>
<ul><li>${count(view.apiKeys.length, 'API key', 'API keys')} they created${names(view.apiKeys)}: revoked, unless you take them over below.</li></ul>
<h2>What stays</h2>
<ul><li>${
      view.serviceKeys.length
        ? `${count(view.serviceKeys.length, 'service key', 'service keys')} they created, and the project tokens derived from them: they keep working.`
        : 'Their connected AI clients, and the projects.'
    }</li></ul>
<form method="post" action="${base}/${member.userId}/role">
${csrfField(ctx)}
<input type="hidden" name="role" value="member">
<input type="hidden" name="confirm" value="true">
<label class="choice" for="hand-over"><input type="checkbox" id="hand-over" name="handOver" value="true">
<span><span>Take over their API keys instead</span><span class="desc">The keys keep working, with you as their creator, instead of being revoked.</span></span></label>
<div class="actions"><button type="submit" class="danger primary">Make ${member.name} a member</button></div>
</form>
<p><a href="${base}">Cancel</a></p>
</div>`,
  });
}

function confirmForm(ctx: DashboardContext, base: string, member: Member, hasApiKeys: boolean): SafeHtml {
  const you = member.userId === ctx.user.id;
  return html`<form method="post" action="${base}/${member.userId}/remove">
${csrfField(ctx)}
${hasApiKeys && !you
  ? html`<label class="choice" for="hand-over"><input type="checkbox" id="hand-over" name="handOver" value="true">
<span><span>Take over their API keys instead</span><span class="desc">The keys keep working, with you as their creator, instead of being revoked.</span></span></label>`
  : ''}
<div class="actions"><button type="submit" class="danger primary">Remove ${member.name}</button></div>
</form>
<p><a href="${base}">Cancel</a></p>`;
}

function count(n: number, one: string, many: string): string {
  return n === 1 ? `1 ${one}` : `${n} ${many}`;
}

function names(items: { name: string }[]): SafeHtml | string {
  if (items.length === 0) return '';
  const shown = items.slice(0, 5);
  return html` (${shown.map((k, i) => html`${i ? ', ' : ''}“${k.name}”`)}${items.length > shown.length ? html` and ${items.length - shown.length} more` : ''})`;
}
