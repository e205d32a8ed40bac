import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, HTTP_STATUS_OF_KIND, NotFoundError } from '@app/common';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { IdentityProviderSettings, SsoRedirectUris, type IdentityProviderInput, type IdentityProviderView } from '@app/identity';
import { ProjectsService } from '@app/organizations';
import { sendPage, sendRedirect, singleParam } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { PICKER_PAGE_SIZE, PickerState, readPicker } from '../views/picker';
import { noticeOf } from '../views/when';
import {
  IdJagField,
  IdJagForm,
  idJagFormOf,
  ProjectChoices,
  removeConnectionPage,
  SettingsField,
  SettingsForm,
  settingsFormOf,
  singleSignOnPage,
  ssoPath,
  SSO_PROJECT_PICKER,
} from './single-sign-on.view';

const NOTICES: Record<string, string> = {
  connected: 'Identity provider connected. Publish the TXT record of each domain, then verify it.',
  saved: 'Settings saved.',
  'saved-id-jag-off': 'Settings saved. Accepting ID-JAG was switched off: the issuer changed, so an admin must sign in through the new one first.',
  'id-jag-saved': 'AI client settings saved.',
  verified: 'Domain verified.',
  removed: 'Identity provider disconnected.',
  'redirect-uri': 'Only this organisation\'s own redirect URI is accepted from now on.',
};

/** Which form field each refusal of the settings service stands next to (the rest: above the form). */
const SETTINGS_FIELD_OF_CODE: Record<string, SettingsField> = {
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
  invalid_role_mappings: 'roleMappings',
  invalid_require_sso: 'requireSso',
};

const ID_JAG_FIELD_OF_CODE: Record<string, IdJagField> = {
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
  [/\broleMappings\b/g, 'Mappings'],
  [/\bdefaultRole\b/g, 'Default role'],
  [/\brequireSso\b/g, 'Require single sign-on'],
  [/\bacceptIdJag\b/g, 'Accept ID-JAG'],
  [/\bidJagClients\b/g, 'AI clients'],
  [/\bprojectId\b/g, 'project'],
];

/**
 * The organisation's identity provider (admins): what `GET/PUT/DELETE
 * /api/organizations/:orgId/identity-provider` and `…/domains/:domain/verify` do, as a page, on
 * the same `IdentityProviderSettings`. The client secret is write-only: the page never shows it,
 * not even after a refused post.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/single-sign-on')
export class SingleSignOnPageController {
  constructor(
    private readonly settings: IdentityProviderSettings,
    private readonly projects: ProjectsService,
    private readonly redirectUris: SsoRedirectUris,
  ) {}

  @Get()
  @PageAuth()
  async show(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const picker = readPicker(query, SSO_PROJECT_PICKER);
    await this.render(ctx, res, 200, { picker, notice: noticeOf(NOTICES, query) });
  }

  /** The settings form: connection, domains, roles, "require single sign-on" (ID-JAG settings are kept). */
  @Post()
  @PageAuth()
  async save(@Dashboard() ctx: DashboardContext, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const { form, rowNumbers } = settingsFormFrom(body);
    if (singleParam(body, 'add').value === 'mapping' && !form.errors.form) {
      form.roleMappings.push({ group: '', role: 'member' });
      if (!form.errors.clientSecret && typeof body?.clientSecret === 'string' && body.clientSecret !== '') {
        form.errors.clientSecret = 'Type the client secret again before saving (it is never sent back to the browser)';
      }
      return this.render(ctx, res, 200, { form });
    }
    if (Object.keys(form.errors).length) return this.render(ctx, res, 400, { form });
    const secret = singleParam(body, 'clientSecret');
    const current = await this.settings.get(orgId);
    const issuerChanged = current !== null && current.issuer !== form.issuer;
    const turnedOff = issuerChanged && current.acceptIdJag;
    const input: IdentityProviderInput = {
      issuer: form.issuer,
      clientId: form.clientId,
      ...(secret.value !== undefined ? { clientSecret: secret.value } : {}),
      emailDomains: domainsOf(form.emailDomains),
      defaultRole: singleParam(body, 'defaultRole').value ?? 'member',
      groupsClaim: form.groupsClaim === '' ? null : form.groupsClaim,
      roleMappings: form.roleMappings.filter((m) => m.group.trim() !== ''),
      requireSso: form.requireSso,
      acceptIdJag: turnedOff ? false : (current?.acceptIdJag ?? false),
      idJagClients: current?.idJagClients ?? [],
    };
    try {
      await this.settings.put(orgId, input, ctx.actor);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const field = SETTINGS_FIELD_OF_CODE[error.code] ?? 'form';
      form.errors[field] = inWords(error.message, /roleMappings\[(\d+)\]/g, (i) => `Mapping row ${rowNumbers[i] ?? i + 1}`);
      return this.render(ctx, res, HTTP_STATUS_OF_KIND[error.kind], { form });
    }
    sendRedirect(res, 303, `${ssoPath(orgId)}?done=${!current ? 'connected' : turnedOff ? 'saved-id-jag-off' : 'saved'}`);
  }

  /** The ID-JAG form: acceptance and the client → project rows (the other settings are kept). */
  @Post('id-jag')
  @PageAuth()
  async saveIdJag(@Dashboard() ctx: DashboardContext, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const current = await this.settings.get(orgId);
    if (!current) throw new NotFoundError('Identity provider');
    const { idJag, rowNumbers } = idJagFormFrom(body);
    if (singleParam(body, 'add').value === 'client' && !idJag.errors.form) {
      idJag.clients.push({ clientId: '', projectId: '' });
      return this.render(ctx, res, 200, { idJag });
    }
    if (Object.keys(idJag.errors).length) return this.render(ctx, res, 400, { idJag });
    const input: IdentityProviderInput = {
      ...keptSettings(current),
      acceptIdJag: idJag.acceptIdJag,
      idJagClients: idJag.clients.filter((c) => c.clientId.trim() !== '').map((c) => ({ clientId: c.clientId, projectId: c.projectId === '' ? null : c.projectId })),
    };
    try {
      await this.settings.put(orgId, input, ctx.actor);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const field = ID_JAG_FIELD_OF_CODE[error.code] ?? 'form';
      idJag.errors[field] = inWords(error.message, /idJagClients\[(\d+)\]/g, (i) => `Client row ${rowNumbers[i] ?? i + 1}`);
      return this.render(ctx, res, HTTP_STATUS_OF_KIND[error.kind], { idJag });
    }
    sendRedirect(res, 303, `${ssoPath(orgId)}?done=id-jag-saved`);
  }

  /** Looks up the domain's TXT record now (as `POST …/identity-provider/domains/:domain/verify`). */
  @Post('domains/:domain/verify')
  @PageAuth()
  async verify(@Dashboard() ctx: DashboardContext, @Param('domain') domain: string, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    try {
      await this.settings.verifyDomain(orgId, domain, ctx.actor);
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind === 'not_found') throw error;
      return this.render(ctx, res, HTTP_STATUS_OF_KIND[error.kind], { domainError: { domain: domain.toLowerCase(), message: error.message } });
    }
    sendRedirect(res, 303, `${ssoPath(orgId)}?done=verified`);
  }

  /** "I registered the new URI": the shared redirect URI stops being accepted for this IdP. */
  @Post('redirect-uri')
  @PageAuth()
  async confirmRedirectUri(@Dashboard() ctx: DashboardContext, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    await this.redirectUris.confirmNewUri(orgId, ctx.actor);
    sendRedirect(res, 303, `${ssoPath(orgId)}?done=redirect-uri`);
  }

  @Get('remove')
  @PageAuth()
  async confirmRemove(@Dashboard() ctx: DashboardContext, @Res() res: Response): Promise<void> {
    const current = await this.settings.get(currentOrganization(ctx).id);
    if (!current) throw new NotFoundError('Identity provider');
    sendPage(res, 200, removeConnectionPage(ctx, current));
  }

  @Post('remove')
  @PageAuth()
  async remove(@Dashboard() ctx: DashboardContext, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    await this.settings.remove(orgId, ctx.actor);
    sendRedirect(res, 303, `${ssoPath(orgId)}?done=removed`);
  }

  private async render(
    ctx: DashboardContext,
    res: Response,
    status: number,
    options: { picker?: PickerState; notice?: string; form?: SettingsForm; idJag?: IdJagForm; domainError?: { domain: string; message: string } },
  ): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const settings = await this.settings.get(orgId);
    const idJag = options.idJag ?? idJagFormOf(settings);
    const picker = options.picker ?? { query: '' };
    const redirectUris = { redirectUri: await this.redirectUris.uriFor(orgId), legacyUri: this.redirectUris.legacyUri };
    const [choices, projectNames] = await Promise.all([
      this.choices(orgId, picker),
      this.projects.namesOf(orgId, [...new Set(idJag.clients.map((c) => c.projectId).filter((id) => id !== ''))]),
    ]);
    sendPage(
      res,
      status,
      singleSignOnPage(ctx, {
        settings,
        form: options.form ?? settingsFormOf(settings),
        idJag,
        choices,
        projectNames,
        redirectUris,
        notice: options.notice,
        domainError: options.domainError,
      }),
    );
  }

  private async choices(orgId: string, picker: PickerState): Promise<ProjectChoices> {
    const page = await this.projects.page(orgId, { limit: PICKER_PAGE_SIZE, cursor: picker.cursor, query: picker.query });
    return { projects: page.items, query: picker.query, nextCursor: page.nextCursor, onFirstPage: !picker.cursor };
  }
}

/** The stored settings other than ID-JAG's, as the service takes them (the secret stays as stored). */
function keptSettings(current: IdentityProviderView): IdentityProviderInput {
  return {
    issuer: current.issuer,
    clientId: current.clientId,
    emailDomains: current.emailDomains,
    defaultRole: current.defaultRole,
    groupsClaim: current.groupsClaim,
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

function settingsFormFrom(body: Record<string, unknown> | undefined): { form: SettingsForm; rowNumbers: number[] } {
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
  if (singleParam(body, 'clientSecret').duplicate) errors.clientSecret = `Client secret ${TWICE}`;
  if (singleParam(body, 'defaultRole').duplicate) errors.defaultRole = `Default role ${TWICE}`;
  const requireSso = singleParam(body, 'requireSso');
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
    form: { issuer, clientId, emailDomains: emailDomains.value ?? '', groupsClaim, roleMappings, requireSso: requireSso.value === 'true', errors },
    rowNumbers,
  };
}

function idJagFormFrom(body: Record<string, unknown> | undefined): { idJag: IdJagForm; rowNumbers: number[] } {
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
function domainsOf(text: string): string[] {
  return text.split(/[\s,;]+/).filter((d) => d !== '');
}

/** A refusal's message with the REST field names said as the page's labels, and row indices as row numbers. */
function inWords(message: string, rows: RegExp, rowLabel: (index: number) => string): string {
  let text = message.replace(new RegExp(`${rows.source}(?:\\.(\\w+))?`, 'g'), (_, i: string, property?: string) => `${rowLabel(Number(i))}${property ? `'s ${property}` : ''}`);
  text = text.replace(/\bemailDomains\[(\d+)\]/g, (_, i: string) => `Domain ${Number(i) + 1}`);
  for (const [pattern, words] of FIELD_WORDS) text = text.replace(pattern, words);
  return text;
}
