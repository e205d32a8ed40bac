import type { IdentityProviderInput, IdentityProviderView } from '@app/identity';
import { singleParam } from '@app/web';
import type { IdJagField, IdJagForm, SettingsField, SettingsForm } from './single-sign-on.view';

/** Which form field each refusal of the settings service stands next to (the rest: above the form). */
export const SETTINGS_FIELD_OF_CODE: Record<string, SettingsField> = {
  invalid_issuer: 'issuer',
  identity_provider_unreachable: 'issuer',
  invalid_discovery: 'issuer',
  discovery_issuer_mismatch: 'issuer',
  pkce_s256_unsupported: 'issuer',
  invalid_jwks: 'issuer',
  invalid_client_id: 'clientId',
  invalid_client_secret: 'clientSecret',
  client_secret_required: 'clientSecret',
  invalid_email_domain: 'emailDomains',
  invalid_email_domains: 'emailDomains',
  public_email_domain: 'emailDomains',
  domain_claimed: 'emailDomains',
  invalid_default_role: 'defaultRole',
  invalid_groups_claim: 'groupsClaim',
  invalid_scopes: 'scopes',
  invalid_role_mappings: 'roleMappings',
  invalid_require_sso: 'requireSso',
};

export const ID_JAG_FIELD_OF_CODE: Record<string, IdJagField> = {
  id_jag_needs_admin_sign_in: 'acceptIdJag',
  invalid_accept_id_jag: 'acceptIdJag',
  invalid_id_jag_clients: 'idJagClients',
};

/** The REST field names in the service's messages, as the page's labels say them. */
const FIELD_WORDS: [RegExp, string][] = [
  [/\bclientSecret\b/g, 'Client secret'],
  [/\bclientId\b/g, 'Client ID'],
  [/\bemailDomains\b/g, 'Email domains'],
  [/\bgroupsClaim\b/g, 'Groups claim'],
  [/\bscopes\b/g, 'Extra scopes'],
  [/\broleMappings\b/g, 'Mappings'],
  [/\bdefaultRole\b/g, 'Default role'],
  [/\brequireSso\b/g, 'Require single sign-on'],
  [/\bacceptIdJag\b/g, 'Accept ID-JAG'],
  [/\bidJagClients\b/g, 'AI clients'],
  [/\bprojectId\b/g, 'project'],
];

/** The stored settings other than ID-JAG's, as the service takes them (the secret stays as stored). */
export function keptSettings(current: IdentityProviderView): IdentityProviderInput {
  return {
    issuer: current.issuer,
    clientId: current.clientId,
    emailDomains: current.emailDomains,
    defaultRole: current.defaultRole,
    groupsClaim: current.groupsClaim,
    scopes: current.scopes,
    roleMappings: current.roleMappings,
    requireSso: current.requireSso,
  };
}

/** A form field's values: none, one, or the repeated field of a table's rows. */
function values(body: Record<string, unknown> | undefined, name: string): string[] | null {
  const raw = body?.[name];
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw) && raw.every((v) => typeof v === 'string')) return raw as string[];
  return null;
}

/** Row indices ticked "Remove". */
function removed(body: Record<string, unknown> | undefined, name: string): Set<number> | null {
  const ticked = values(body, name);
  if (ticked === null || ticked.some((v) => !/^\d{1,4}$/.test(v))) return null;
  return new Set(ticked.map(Number));
}

const TWICE = 'was sent more than once';

/** The settings form as posted, checked for what the page itself sends. */
export function settingsFormFrom(body: Record<string, unknown> | undefined): { form: SettingsForm; rowNumbers: number[] } {
  const errors: SettingsForm['errors'] = {};
  const one = (name: string, field: SettingsField, label: string): string => {
    const p = singleParam(body, name);
    if (p.duplicate) errors[field] = `${label} ${TWICE}`;
    return (p.value ?? '').trim();
  };
  const issuer = one('issuer', 'issuer', 'Issuer');
  const clientId = one('clientId', 'clientId', 'Client ID');
  const emailDomains = singleParam(body, 'emailDomains');
  if (emailDomains.duplicate) errors.emailDomains = `Email domains ${TWICE}`;
  const groupsClaim = one('groupsClaim', 'groupsClaim', 'Groups claim');
  const scopes = one('scopes', 'scopes', 'Extra scopes');
  if (singleParam(body, 'clientSecret').duplicate) errors.clientSecret = `Client secret ${TWICE}`;
  if (singleParam(body, 'defaultRole').duplicate) errors.defaultRole = `Default role ${TWICE}`;
  const requireSso = singleParam(body, 'requireSso');
  const confirmLockout = singleParam(body, 'confirmLockout');
  if (requireSso.duplicate) errors.requireSso = `Require single sign-on ${TWICE}`;

  const groups = values(body, 'mappingGroup');
  const roles = values(body, 'mappingRole');
  const drop = removed(body, 'mappingRemove');
  const roleMappings: SettingsForm['roleMappings'] = [];
  const rowNumbers: number[] = [];
  if (groups === null || roles === null || drop === null || groups.length !== roles.length) {
    errors.form = 'The mapping rows were not sent as this page sends them: reload the page and try again';
  } else {
    groups.forEach((group, i) => {
      if (drop.has(i)) return;
      roleMappings.push({ group: group.trim(), role: roles[i] });
      if (group.trim() !== '') rowNumbers.push(i + 1);
    });
  }
  return {
    form: { issuer, clientId, emailDomains: emailDomains.value ?? '', groupsClaim, scopes, roleMappings, requireSso: requireSso.value === 'true', confirmLockout: confirmLockout.value === 'true', errors },
    rowNumbers,
  };
}

/** The ID-JAG form as posted. */
export function idJagFormFrom(body: Record<string, unknown> | undefined): { idJag: IdJagForm; rowNumbers: number[] } {
  const errors: IdJagForm['errors'] = {};
  const accept = singleParam(body, 'acceptIdJag');
  if (accept.duplicate) errors.acceptIdJag = `Accept ID-JAG ${TWICE}`;
  const ids = values(body, 'idJagClientId');
  const projects = values(body, 'idJagProject');
  const drop = removed(body, 'idJagRemove');
  const clients: IdJagForm['clients'] = [];
  const rowNumbers: number[] = [];
  if (ids === null || projects === null || drop === null || ids.length !== projects.length) {
    errors.form = 'The client rows were not sent as this page sends them: reload the page and try again';
  } else {
    ids.forEach((clientId, i) => {
      if (drop.has(i)) return;
      clients.push({ clientId: clientId.trim(), projectId: projects[i] });
      if (clientId.trim() !== '') rowNumbers.push(i + 1);
    });
  }
  return { idJag: { acceptIdJag: accept.value === 'true', clients, errors }, rowNumbers };
}

/** The domains typed in the text area: one a line (commas and spaces separate them too). */
/** The extra scopes typed in their field: separated by spaces (commas too). */
export function scopesOf(text: string): string[] {
  return text.split(/[\s,]+/).filter((s) => s !== '');
}

export function domainsOf(text: string): string[] {
  return text.split(/[\s,;]+/).filter((d) => d !== '');
}

/** A refusal's message with the REST field names said as the page's labels, and row indices as row numbers. */
export function inWords(message: string, rows: RegExp, rowLabel: (index: number) => string): string {
  let text = message.replace(new RegExp(`${rows.source}(?:\\.(\\w+))?`, 'g'), (_, i: string, property?: string) => `${rowLabel(Number(i))}${property ? `'s ${property}` : ''}`);
  text = text.replace(/\bemailDomains\[(\d+)\]/g, (_, i: string) => `Domain ${Number(i) + 1}`);
  text = text.replace(/\bscopes\[(\d+)\]/g, (_, i: string) => `Extra scope ${Number(i) + 1}`);
  for (const [pattern, words] of FIELD_WORDS) text = text.replace(pattern, words);
  return text;
}
