import type { ClientPolicyDto, ClientPolicyMode, RefusedClients } from '@app/oauth';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, sectionPath } from '../views/layout';
import { when } from '../views/when';

export interface ClientPolicyForm {
  mode: ClientPolicyMode | '';
  /** The hosts as typed, one a line. */
  hosts: string;
  allowRegisteredClients: boolean;
  errors: Partial<Record<'mode' | 'allowedHosts', string>>;
}

/** The form's state from a stored policy. */
export function formOf(policy: ClientPolicyDto): ClientPolicyForm {
  return { mode: policy.mode, hosts: policy.allowedHosts.join('\n'), allowRegisteredClients: policy.allowRegisteredClients, errors: {} };
}

/** Which AI clients may connect to the organisation's projects: any, or only the listed ones. */
export function clientPolicyPage(ctx: DashboardContext, view: { policy: ClientPolicyDto; form: ClientPolicyForm; notice?: string }): HtmlPage {
  const clients = sectionPath(ctx.organization!.id, 'clients');
  const { form } = view;
  const { errors } = form;
  return dashboardPage(ctx, {
    title: 'Which clients may connect',
    section: 'clients',
    notice: view.notice,
    body: html`<h1>Which AI clients may connect</h1>
<p><a href="${clients}">Back to connected clients</a></p>
<p class="muted">Decides which AI applications people may connect to this organisation's projects. The consent screen offers this organisation's projects only to clients it admits, and the connections of a client it stops admitting end at once. ${
      view.policy.updatedAt ? html`Last changed ${when(view.policy.updatedAt)}.` : 'Never changed: any client may connect.'
    }</p>
<form method="post" action="${clients}/policy" class="card" novalidate>
${csrfField(ctx)}
<fieldset${errors.mode ? html` aria-describedby="policy-mode-error"` : ''}>
<legend>Clients that may connect</legend>
${errors.mode ? html`<p class="field-error" id="policy-mode-error">${errors.mode}</p>` : ''}
${modeChoice('any', 'Any client', 'Every application a person consents to (the default).', form)}
${modeChoice('listed', 'Only these clients', 'Only the clients listed below; the others are refused on the consent screen and lose their connections.', form)}
</fieldset>
<label for="policy-hosts">Hosts of metadata-document clients (with “Only these clients”)</label>
<p class="hint" id="policy-hosts-hint">One a line: the host of the client's <code>client_id</code> URL, as the consent screen and the connected-clients list show it (for example <code>claude.ai</code>, or <code>localhost:8443</code> with a port). No scheme, path or wildcard.</p>
${errors.allowedHosts ? html`<p class="field-error" id="policy-hosts-error">${errors.allowedHosts}</p>` : ''}
<textarea id="policy-hosts" name="allowedHosts" rows="5" spellcheck="false" autocomplete="off" aria-describedby="policy-hosts-hint${errors.allowedHosts ? ' policy-hosts-error' : ''}"${
      errors.allowedHosts ? html` aria-invalid="true"` : ''
    }>${form.hosts}</textarea>
<fieldset>
<legend>Registered clients (with “Only these clients”)</legend>
<label class="choice"><input type="checkbox" name="allowRegisteredClients" value="true" aria-describedby="policy-registered-desc"${
      form.allowRegisteredClients ? html` checked` : ''
    }><span>Allow registered clients<span class="desc" id="policy-registered-desc">Clients that register themselves (dynamic client registration) on each connection. They cannot be told apart, so they are allowed or refused as one class.</span></span></label>
</fieldset>
<div class="actions"><button type="submit" class="primary">Save policy</button></div>
</form>`,
  });
}

function modeChoice(mode: ClientPolicyMode, label: string, description: string, form: ClientPolicyForm): SafeHtml {
  return html`<label class="choice"><input type="radio" name="mode" value="${mode}" aria-describedby="policy-mode-${mode}-desc"${
    form.mode === mode ? html` checked` : ''
  }${form.errors.mode ? html` aria-invalid="true"` : ''}><span>${label}<span class="desc" id="policy-mode-${mode}-desc">${description}</span></span></label>`;
}

/** Before a policy that ends connections is saved: which clients it refuses and how many connections end. */
export function confirmPolicyPage(ctx: DashboardContext, form: ClientPolicyForm, refused: RefusedClients): HtmlPage {
  const clients = sectionPath(ctx.organization!.id, 'clients');
  const connections = refused.grants === 1 ? '1 connection' : `${refused.grants} connections`;
  return dashboardPage(ctx, {
    title: 'Save the client policy?',
    section: 'clients',
    body: html`<div class="card">
<h1>Save the client policy and end ${connections}?</h1>
<p>The new policy refuses ${refused.clients.length === 1 ? 'a client that is' : `${refused.clients.length} clients that are`} connected now. Saving it ends ${connections} (every access and refresh token of them) at once:</p>
<ul>${refused.clients.map((c) => html`<li><strong>${c.name}</strong> (${c.hosts.join(', ')}): ${c.grants === 1 ? '1 connection' : `${c.grants} connections`}</li>`)}</ul>
<form method="post" action="${clients}/policy">${csrfField(ctx)}
<input type="hidden" name="mode" value="${form.mode}">
<input type="hidden" name="allowedHosts" value="${form.hosts}">
${form.allowRegisteredClients ? html`<input type="hidden" name="allowRegisteredClients" value="true">` : ''}
<input type="hidden" name="confirm" value="yes">
<div class="actions"><a href="${clients}/policy">Cancel</a><button type="submit" class="danger primary">Save and end ${connections}</button></div>
</form>
</div>`,
  });
}
