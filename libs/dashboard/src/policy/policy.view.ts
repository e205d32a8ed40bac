import type { PolicyDto, PolicyEvaluationDto, PolicyRule } from '@app/policy';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { recentSignInField } from '../recent-sign-in-form';
import { csrfField, dashboardPage, sectionPath } from '../views/layout';
import { when } from '../views/when';

/** Where the editor's rules are wrong: the message, and the condition with the position marked. */
export interface RulesError {
  message: string;
  condition?: { text: string; position: number };
}

/** The editor's and the "try it" box's fields, as typed. */
export interface PolicyForm {
  version: string;
  rules: string;
  call: { projectId: string; tool: string; args: string; credentialKind: string; clientId: string; userId: string };
  errors: { rules?: RulesError; password?: string; call?: string };
  /** The stored policy was older than the one the form was made from, or the sign-in was old: ask for the password. */
  askPassword?: boolean;
}

export interface PolicyView {
  policy: PolicyDto;
  form: PolicyForm;
  tools: string[];
  projects: { id: string; name: string }[];
  notice?: string;
  tried?: PolicyEvaluationDto;
}

/** The editor's text for stored rules. */
export function rulesText(rules: PolicyRule[]): string {
  return JSON.stringify(rules, null, 2);
}

/** The organisation's policy over agents' calls: the rules, an editor, and a box to try a call. */
export function policyPage(ctx: DashboardContext, view: PolicyView): HtmlPage {
  const path = sectionPath(ctx.organization!.id, 'policy');
  const { policy, form } = view;
  const { errors } = form;
  return dashboardPage(ctx, {
    title: 'Policy',
    section: 'policy',
    notice: view.notice,
    body: html`<h1>Policy for agents' calls</h1>
<p class="muted">Rules decide which calls AI agents may make in this organisation's projects, before the tool runs. The first rule that matches a call decides it; a call no rule matches is allowed. ${
      policy.updatedAt ? html`Version ${String(policy.version)}, last changed ${when(policy.updatedAt)}.` : 'No rule yet: every call is allowed.'
    }</p>
${rulesTable(policy.rules)}
<form method="post" action="${path}" class="card" novalidate>
${csrfField(ctx)}
<input type="hidden" name="version" value="${form.version}">
<h2>Edit the rules</h2>
<label for="policy-rules">Rules (JSON, in order)</label>
<p class="hint" id="policy-rules-hint">A list of rules such as <code>{"id": "no-machine-deletes", "risk": ["destructive"], "credentialKinds": ["derived"], "effect": "deny"}</code>. Conditions (<code>when</code>) are CEL over <code>tool</code>, <code>args</code>, <code>risk</code>, <code>credential</code>, <code>client</code>, <code>person</code>, <code>project</code> and <code>now</code>.</p>
${errors.rules ? rulesErrorBlock(errors.rules) : ''}
<textarea id="policy-rules" name="rules" rows="14" spellcheck="false" autocomplete="off" aria-describedby="policy-rules-hint${errors.rules ? ' policy-rules-error' : ''}"${
      errors.rules ? html` aria-invalid="true"` : ''
    }>${form.rules}</textarea>
${recentSignInField(ctx, { id: 'policy-password', returnTo: path, organizationId: ctx.organization!.id, error: errors.password, asked: form.askPassword, newTab: true })}
<div class="actions"><button type="submit" class="primary">Save rules</button></div>
<h2>Try a call</h2>
<p class="hint">What the rules above (as typed, not saved) decide for a call.</p>
${errors.call ? html`<p class="field-error" id="policy-call-error" role="alert">${errors.call}</p>` : ''}
${view.tried ? triedBlock(view.tried) : ''}
<label for="try-project">Project</label>
<select id="try-project" name="projectId">${view.projects.map((p) => html`<option value="${p.id}"${p.id === form.call.projectId ? html` selected` : ''}>${p.name}</option>`)}</select>
<label for="try-tool">Tool</label>
<select id="try-tool" name="tool">${view.tools.map((t) => html`<option value="${t}"${t === form.call.tool ? html` selected` : ''}>${t}</option>`)}</select>
<label for="try-args">Arguments (JSON)</label>
<textarea id="try-args" name="args" rows="3" spellcheck="false" autocomplete="off">${form.call.args}</textarea>
<label for="try-kind">Credential</label>
<select id="try-kind" name="credentialKind">${(['oauth', 'id_jag', 'derived'] as const).map(
      (k) => html`<option value="${k}"${k === form.call.credentialKind ? html` selected` : ''}>${KIND_LABELS[k]}</option>`,
    )}</select>
<label for="try-client">Client id (optional)</label>
<input id="try-client" name="clientId" value="${form.call.clientId}" autocomplete="off">
<label for="try-user">Person's user id (optional)</label>
<input id="try-user" name="userId" value="${form.call.userId}" autocomplete="off">
<div class="actions"><button type="submit" formaction="${path}/try">Try it</button></div>
</form>`,
  });
}

const KIND_LABELS = { oauth: 'OAuth (a person’s connected client)', id_jag: 'ID-JAG (traded at the identity provider)', derived: 'Derived project token (a machine)' } as const;

function rulesTable(rules: PolicyRule[]): SafeHtml {
  if (rules.length === 0) return html`<p>No rules.</p>`;
  return html`<table class="list"><caption>Rules, in the order they are tried</caption>
<thead><tr><th scope="col">#</th><th scope="col">Rule</th><th scope="col">Matches</th><th scope="col">Condition</th><th scope="col">Effect</th></tr></thead>
<tbody>${rules.map(
    (r, i) => html`<tr><td>${String(i + 1)}</td><td><strong>${r.id}</strong>${r.description ? html`<br><span class="muted">${r.description}</span>` : ''}</td><td>${matches(r)}</td><td>${
      r.when ? html`<code>${r.when}</code>` : '—'
    }</td><td>${r.effect}</td></tr>`,
  )}</tbody></table>`;
}

function matches(rule: PolicyRule): string {
  const parts = [
    rule.projects && `projects ${rule.projects.join(', ')}`,
    rule.tools && `tools ${rule.tools.join(', ')}`,
    rule.risk && `risk ${rule.risk.join(', ')}`,
    rule.credentialKinds && `credentials ${rule.credentialKinds.join(', ')}`,
    rule.clients && `clients ${rule.clients.join(', ')}`,
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'every call';
}

function rulesErrorBlock(error: RulesError): SafeHtml {
  const c = error.condition;
  const marked = c
    ? html`<pre class="condition-error"><code>${c.text.slice(0, c.position)}<mark>${c.text.slice(c.position, c.position + 1) || ' '}</mark>${c.text.slice(c.position + 1)}</code></pre>`
    : '';
  return html`<div class="field-error" id="policy-rules-error" role="alert"><p>${error.message}</p>${marked}</div>`;
}

function triedBlock(tried: PolicyEvaluationDto): SafeHtml {
  const rule = tried.rule ? html`rule <strong>${tried.rule.id}</strong>` : 'no rule matched';
  const error = tried.evaluationError ? html` Its condition failed to evaluate (${tried.evaluationError}), which refuses the call.` : '';
  return html`<p class="notice" role="status" id="policy-tried">Effect: <strong>${tried.effect}</strong> (${rule}).${error}</p>`;
}
