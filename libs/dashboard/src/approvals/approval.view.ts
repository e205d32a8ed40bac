import type { ApprovalView, StoredApproval } from '@app/policy';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { recentSignInField } from '../recent-sign-in-form';
import { csrfField, dashboardPage, sectionPath } from '../views/layout';
import { dataTable, emptyState } from '../views/table';
import { when } from '../views/when';

/**
 * Characters a person could not see or that reorder what they see: C0 and C1 controls (JSON
 * escapes most C0 ones itself), the bidirectional marks, embeddings, overrides and isolates, the
 * zero-width ones, the line and paragraph separators and the byte order mark.
 */
const HIDDEN_CHARACTERS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/gu;

/** Text, escaped, with every hidden character shown as a marked `U+XXXX` instead. */
export function visibleText(text: string): SafeHtml {
  const parts: (string | SafeHtml)[] = [];
  let last = 0;
  for (const match of text.matchAll(HIDDEN_CHARACTERS)) {
    parts.push(text.slice(last, match.index));
    const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    parts.push(html`<mark class="hidden-character" title="An invisible or direction-changing character">U+${code}</mark>`);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return html`${parts}`;
}

export interface ApprovalPageView {
  approval: ApprovalView;
  organizationName: string;
  projectName: string | null;
  clientName: string | null;
  people: Map<string, { name: string; email: string }>;
  earlier: StoredApproval[];
  /** The current state of what the call would change (the task to delete), when the tool shows one. */
  target: string | null;
  notice?: string;
  error?: string;
  /** The decision was refused for an old sign-in (or a wrong password): ask for a recent one. */
  askPassword?: boolean;
}

const STATUS_WORDS: Record<string, string> = {
  pending: 'Waiting for a decision',
  approved: 'Approved: the agent may run this call once',
  consumed: 'Approved and run',
  denied: 'Denied',
  expired: 'Expired without a decision',
  voided: 'Voided',
};

/** One held call: exactly what the agent asked to do, who asked, under which rule, and the decision form. */
export function approvalPage(ctx: DashboardContext, view: ApprovalPageView): HtmlPage {
  const a = view.approval;
  const person = (id: string | null) => (id ? (view.people.get(id)?.email ?? id) : null);
  return dashboardPage(ctx, {
    title: `Approval of ${a.tool}`,
    notice: view.notice,
    body: html`<h1>An agent asks to run <code>${a.tool}</code></h1>
<p id="approval-status" class="muted">${STATUS_WORDS[a.status] ?? a.status}${a.voidedReason ? html` (${a.voidedReason.replace(/_/g, ' ')})` : ''}. ${
      a.settings.count === 2 ? html`This rule needs two approvers: ${String(a.approvals.count)} of 2 so far.` : ''
    }</p>
<dl class="card">
<dt>Organisation</dt><dd>${view.organizationName}</dd>
<dt>Project</dt><dd>${view.projectName ?? html`<span class="muted">deleted</span>`} <span class="muted">(${a.projectId})</span></dd>
<dt>Tool</dt><dd><code>${a.tool}</code>, risk <strong id="approval-risk">${a.risk ?? 'unknown'}</strong></dd>
${view.target ? html`<dt>What it would change</dt><dd id="approval-target">${visibleText(view.target)}</dd>` : ''}
<dt>Rule</dt><dd><code id="approval-rule">${a.ruleId}</code>${a.ruleDescription ? html`: ${a.ruleDescription}` : ''}</dd>
<dt>Client</dt><dd>${a.clientId ? html`${view.clientName ?? a.clientId} <span class="muted">(${a.clientId})</span>` : html`<span class="muted">none (a machine's token)</span>`}</dd>
<dt>Credential</dt><dd>${credentialWords(a.credentialKind)} <span class="muted">(${a.credentialId})</span></dd>
<dt>Person</dt><dd>${person(a.userId) ?? html`<span class="muted">none (a machine's token)</span>`}</dd>
<dt>Requested</dt><dd>${when(a.createdAt)}</dd>
<dt>Expires</dt><dd>${when(a.expiresAt)}</dd>
${a.approvedBy.length ? html`<dt>Approved by</dt><dd>${a.approvedBy.map((id) => person(id)).join(', ')}</dd>` : ''}
${a.deniedBy ? html`<dt>Denied by</dt><dd>${person(a.deniedBy)}</dd>` : ''}
${a.decisionReason ? html`<dt>Reason</dt><dd>${visibleText(a.decisionReason)}</dd>` : ''}
</dl>
<h2>The arguments, exactly as the tool would get them</h2>
<p class="hint">Invisible and direction-changing characters are shown as <mark>U+XXXX</mark>.</p>
<pre id="approval-arguments" class="card">${visibleText(JSON.stringify(a.arguments, null, 2))}</pre>
${a.canDecide ? decisionForm(ctx, view) : ''}
<h2>This credential's earlier approvals</h2>
${view.earlier.length
  ? dataTable(
      "This credential's earlier approvals",
      ['Requested', 'Tool', 'Status'],
      view.earlier.map((e) => html`<tr><td>${when(e.createdAt)}</td><td><a href="/approvals/${e.id}"><code>${e.tool}</code></a></td><td>${e.status}</td></tr>`),
    )
  : html`<p class="muted">None: this is its first.</p>`}`,
  });
}

function decisionForm(ctx: DashboardContext, view: ApprovalPageView): SafeHtml {
  const a = view.approval;
  return html`<form method="post" action="/approvals/${a.id}" class="card" novalidate>
${csrfField(ctx)}
<h2>Your decision</h2>
${view.error ? html`<p class="error" role="alert" id="approval-error">${view.error}</p>` : ''}
<label for="approval-reason">Reason (optional, kept in the audit trail)</label>
<textarea id="approval-reason" name="reason" rows="2" maxlength="500"></textarea>
${view.askPassword ? recentSignInField(ctx, { id: 'approval-password', returnTo: `/approvals/${a.id}`, organizationId: a.organizationId, asked: true }) : ''}
<div class="actions">
<button type="submit" name="decision" value="approve">Approve this call</button>
<button type="submit" name="decision" value="deny" class="danger">Deny</button>
</div>
</form>`;
}

function credentialWords(kind: string): string {
  return kind === 'derived' ? 'A project token derived from a service key' : kind === 'id_jag' ? 'An enterprise-managed OAuth grant (ID-JAG)' : 'An OAuth grant';
}

/** The organisation's approvals the person may read, pending first. */
export function approvalsListPage(ctx: DashboardContext, approvals: ApprovalView[]): HtmlPage {
  const orgId = ctx.organization!.id;
  return dashboardPage(ctx, {
    title: 'Approvals',
    section: 'approvals',
    body: html`<h1>Approvals</h1>
<p class="muted">Agents' calls that a policy rule holds until a person approves them. <a href="${sectionPath(orgId, 'policy')}">The rules</a> say which.</p>
${approvals.length
  ? dataTable(
      'Approvals',
      ['Requested', 'Tool', 'Rule', 'Status', 'Expires'],
      approvals.map(
        (a) =>
          html`<tr><td>${when(a.createdAt)}</td><td><a href="/approvals/${a.id}"><code>${a.tool}</code></a></td><td><code>${a.ruleId}</code></td><td>${a.status}${
            a.canDecide ? html` <strong>(yours to decide)</strong>` : ''
          }</td><td>${when(a.expiresAt)}</td></tr>`,
      ),
    )
  : emptyState('No approvals', 'When a rule with the effect "approve" holds an agent\'s call, it is listed here.')}`,
  });
}
