import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, HTTP_STATUS_OF_KIND, NotFoundError } from '@app/common';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { IdentityProviderSettings, LockoutConfirmationRequiredError, SsoRedirectUris, type IdentityProviderInput } from '@app/identity';
import { ProjectsService } from '@app/projects';
import { sendPage, sendRedirect, singleParam } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { PICKER_PAGE_SIZE, PickerState, readPicker } from '../views/picker';
import { noticeOf } from '../views/when';
import { domainsOf, scopesOf, ID_JAG_FIELD_OF_CODE, idJagFormFrom, inWords, keptSettings, SETTINGS_FIELD_OF_CODE, settingsFormFrom } from './single-sign-on.form';
import {
  IdJagForm,
  idJagFormOf,
  ProjectChoices,
  removeConnectionPage,
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
      scopes: scopesOf(form.scopes),
      roleMappings: form.roleMappings.filter((m) => m.group.trim() !== ''),
      requireSso: form.requireSso,
      confirmLockout: form.confirmLockout,
      acceptIdJag: turnedOff ? false : (current?.acceptIdJag ?? false),
      idJagClients: current?.idJagClients ?? [],
    };
    try {
      await this.settings.put(orgId, input, ctx.actor);
    } catch (error) {
      if (error instanceof LockoutConfirmationRequiredError) return this.render(ctx, res, 409, { form: { ...form, lockout: error.people } });
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
