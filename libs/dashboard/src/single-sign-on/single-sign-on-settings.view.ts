import type { IdentityProviderView, LockedOutMember } from '@app/identity';
import { html, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, sectionPath } from '../views/layout';
import { dataTable } from '../views/table';

/** The fields of the settings form an error can stand next to. */
export type SettingsField = 'issuer' | 'clientId' | 'clientSecret' | 'emailDomains' | 'defaultRole' | 'groupsClaim' | 'scopes' | 'roleMappings' | 'requireSso' | 'form';

/** The settings form as shown: the stored settings, or what was posted (never the client secret). */
export interface SettingsForm {
  issuer: string;
  clientId: string;
  /** Domains as typed, one a line. */
  emailDomains: string;
  groupsClaim: string;
  /** Extra scopes as typed, separated by spaces. */
  scopes: string;
  roleMappings: { group: string; role: string }[];
  requireSso: boolean;
  /** "Require single sign-on anyway", ticked. */
  confirmLockout: boolean;
  /** Who turning on "require single sign-on" would lock out, when the save was refused for it. */
  lockout?: LockedOutMember[];
  errors: Partial<Record<SettingsField, string>>;
}

/** The form's state from the stored settings (or an empty form when none are stored). */
export function settingsFormOf(settings: IdentityProviderView | null): SettingsForm {
  return {
    issuer: settings?.issuer ?? '',
    clientId: settings?.clientId ?? '',
    emailDomains: settings?.emailDomains.join('\n') ?? '',
    groupsClaim: settings?.groupsClaim ?? '',
    scopes: settings?.scopes.join(' ') ?? '',
    roleMappings: settings?.roleMappings.map((m) => ({ ...m })) ?? [],
    requireSso: settings?.requireSso ?? false,
    confirmLockout: false,
    errors: {},
  };
}

/**
 * The first submit button of a form with "Add a … row" buttons: Enter in a text field presses the
 * form's first submit button, which must save, not add a row. Hidden from sight and from
 * assistive technology (they use the visible Save button).
 */
export const DEFAULT_SUBMIT = html`<button type="submit" class="visually-hidden" tabindex="-1" aria-hidden="true">Save</button>`;

export function ssoPath(orgId: string): string {
  return sectionPath(orgId, 'single-sign-on');
}

export function fieldError(id: string, message: string | undefined): SafeHtml {
  return message ? html`<p class="field-error" id="${id}-error">${message}</p>` : html``;
}

export function described(id: string, message: string | undefined, hint = true): SafeHtml {
  const ids = [hint ? `${id}-hint` : '', message ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`${ids ? html` aria-describedby="${ids}"` : ''}${message ? html` aria-invalid="true"` : ''}`;
}

/** The settings form: connection, domains, roles and "require single sign-on". */
export function settingsCard(ctx: DashboardContext, settings: IdentityProviderView | null, form: SettingsForm, redirectUri: string): SafeHtml {
  const orgId = ctx.organization!.id;
  const { errors } = form;
  const rows = [...form.roleMappings];
  if (!rows.some((r) => r.group === '')) rows.push({ group: '', role: 'member' });
  return html`<section class="card" aria-labelledby="sso-settings-title">
<h2 id="sso-settings-title">${settings ? 'Settings' : 'Connect an identity provider'}</h2>
${errors.form ? html`<p class="error" role="alert" id="sso-settings-form-error">${errors.form}</p>` : ''}
<form method="post" action="${ssoPath(orgId)}" novalidate>
${csrfField(ctx)}
${DEFAULT_SUBMIT}
<label for="sso-issuer">Issuer</label>
<p class="hint" id="sso-issuer-hint">The identity provider's issuer URL, such as <code>https://your-org.okta.com</code> or <code>https://login.microsoftonline.com/&lt;tenant id&gt;/v2.0</code>. Its discovery document and key set are read when you save.</p>
${fieldError('sso-issuer', errors.issuer)}
<input type="text" id="sso-issuer" name="issuer" value="${form.issuer}" autocomplete="off" spellcheck="false"${described('sso-issuer', errors.issuer)}>
<label for="sso-client-id">Client ID</label>
<p class="hint" id="sso-client-id-hint">Of the web application you created for this gateway at the identity provider; its redirect URI is <code>${redirectUri}</code>.</p>
${fieldError('sso-client-id', errors.clientId)}
<input type="text" id="sso-client-id" name="clientId" value="${form.clientId}" autocomplete="off" spellcheck="false"${described('sso-client-id', errors.clientId)}>
<label for="sso-client-secret">Client secret</label>
<p class="hint" id="sso-client-secret-hint">${settings
    ? 'Stored and never shown. Leave empty to keep it; type a new one to replace it (needed when the issuer changes).'
    : 'Stored and never shown again.'}</p>
${fieldError('sso-client-secret', errors.clientSecret)}
<input type="password" id="sso-client-secret" name="clientSecret" value="" autocomplete="new-password"${described('sso-client-secret', errors.clientSecret)}>
<label for="sso-domains">Email domains</label>
<p class="hint" id="sso-domains-hint">One a line: the part after the @ of your people's addresses (<code>example.com</code>). New ones are pending until verified; a domain left out loses its claim. Public mail services (gmail.com, outlook.com, …) cannot be claimed.</p>
${fieldError('sso-domains', errors.emailDomains)}
<textarea id="sso-domains" name="emailDomains" rows="3" spellcheck="false" autocomplete="off"${described('sso-domains', errors.emailDomains)}>${form.emailDomains}</textarea>
<label for="sso-default-role">Default role</label>
<p class="hint" id="sso-default-role-hint">The role of people who arrive through the identity provider and are in no mapped group. Never admin: give admin rights through a group mapping or in Members.</p>
${fieldError('sso-default-role', errors.defaultRole)}
<select id="sso-default-role" name="defaultRole"${described('sso-default-role', errors.defaultRole)}><option value="member" selected>Member</option></select>
<label for="sso-scopes">Extra scopes (optional)</label>
<p class="hint" id="sso-scopes-hint">Asked for at sign-in after <code>openid email profile</code>, separated by spaces: for instance <code>groups</code>, where the identity provider puts the groups claim in the ID token only when that scope is asked for.</p>
${fieldError('sso-scopes', errors.scopes)}
<input type="text" id="sso-scopes" name="scopes" value="${form.scopes}" autocomplete="off" spellcheck="false"${described('sso-scopes', errors.scopes)}>
<label for="sso-groups-claim">Groups claim (optional)</label>
<p class="hint" id="sso-groups-claim-hint">The ID token claim that lists a person's groups, such as <code>groups</code>. Needed for the mappings below; at each sign-in the person's role follows them.</p>
${fieldError('sso-groups-claim', errors.groupsClaim)}
<input type="text" id="sso-groups-claim" name="groupsClaim" value="${form.groupsClaim}" autocomplete="off" spellcheck="false"${described('sso-groups-claim', errors.groupsClaim)}>
<fieldset${errors.roleMappings ? html` aria-describedby="sso-mappings-error"` : ''}>
<legend>Group → role mappings</legend>
<p class="hint">A group name (or, for Microsoft Entra ID, the group's object id) as the groups claim lists it, and the role its members get. Empty rows are ignored.</p>
${fieldError('sso-mappings', errors.roleMappings)}
${dataTable('Group to role mappings', ['Group', 'Role', 'Remove'], rows.map((m, i) => mappingRow(m, i)))}
<div class="actions"><button type="submit" name="add" value="mapping">Add a mapping row</button></div>
</fieldset>
<fieldset>
<legend>Require single sign-on</legend>
<label class="choice"><input type="checkbox" name="requireSso" value="true" aria-describedby="sso-require-desc"${form.requireSso ? html` checked` : ''}><span>Require single sign-on<span class="desc" id="sso-require-desc">A session opened with a password then opens nothing in this organisation (pages, API, AI clients' consent): sign in through the identity provider once before you switch this on. People's other organisations are not affected.</span></span></label>
${fieldError('sso-require', errors.requireSso)}
${form.lockout?.length ? lockoutConfirmation(form.lockout) : ''}
</fieldset>
<div class="actions"><button type="submit" class="primary">${settings ? 'Save settings' : 'Connect'}</button></div>
</form>
</section>`;
}

/** How many of the people locked out the confirmation lists by name. */
const LOCKOUT_LISTED = 100;

/** The people "require single sign-on" would lock out, and the box that requires it anyway. */
function lockoutConfirmation(people: LockedOutMember[]): SafeHtml {
  const more = people.length - LOCKOUT_LISTED;
  return html`<div class="warning" role="alert" id="sso-lockout">
<p><strong>${people.length === 1 ? '1 person' : `${people.length} people`} cannot sign in through the identity provider</strong>: no account of theirs is linked to it and their email is not of a verified domain. Once single sign-on is required, no session of theirs opens this organisation until they can (an admin in the list included).</p>
<ul id="sso-lockout-people">${people.slice(0, LOCKOUT_LISTED).map((p) => html`<li>${p.name ? `${p.name} ` : ''}&lt;${p.email}&gt; (${p.role})</li>`)}</ul>
${more > 0 ? html`<p>And ${String(more)} more.</p>` : ''}
<label class="choice"><input type="checkbox" id="sso-confirm-lockout" name="confirmLockout" value="true"><span>Require single sign-on anyway<span class="desc">Or verify their email domains first, or have them sign in through the identity provider once while it is not required.</span></span></label>
</div>`;
}

function mappingRow(m: { group: string; role: string }, i: number): SafeHtml {
  const n = i + 1;
  return html`<tr>
<td><label class="visually-hidden" for="sso-mapping-group-${n}">Group of mapping ${n}</label><input type="text" id="sso-mapping-group-${n}" name="mappingGroup" value="${m.group}" autocomplete="off" spellcheck="false"></td>
<td><label class="visually-hidden" for="sso-mapping-role-${n}">Role of mapping ${n}</label><select id="sso-mapping-role-${n}" name="mappingRole">
<option value="member"${m.role === 'member' ? html` selected` : ''}>Member</option>
<option value="admin"${m.role === 'admin' ? html` selected` : ''}>Admin</option>
</select></td>
<td><label class="choice"><input type="checkbox" name="mappingRemove" value="${String(i)}"><span>Remove<span class="visually-hidden"> mapping ${n}</span></span></label></td>
</tr>`;
}
