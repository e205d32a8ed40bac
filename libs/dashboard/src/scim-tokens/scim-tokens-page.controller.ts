import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { CreateScimTokenDto, ScimTokenNotFoundError, ScimTokensService } from '@app/scim-tokens';
import { UserDirectory } from '@app/tenancy';
import { sendPage, sendRedirect } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { sectionPath } from '../views/layout';
import { noticeOf } from '../views/when';
import { createdScimTokenPage, newScimTokenPage, revokeScimTokenPage, scimTokensPage } from './scim-tokens.view';

const NOTICES: Record<string, string> = { revoked: 'SCIM token revoked. Requests made with it are refused from now on.' };

/**
 * The SCIM tokens section (admins): what `GET/POST /api/organizations/:orgId/scim-tokens` and
 * `DELETE …/scim-tokens/:tokenId` do, as pages, so an admin who signs in only through the IdP
 * never needs a session JWT in curl. The `scim_` secret appears only in the answer to the POST.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/scim-tokens')
export class ScimTokensPageController {
  constructor(
    private readonly tokens: ScimTokensService,
    private readonly users: UserDirectory,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @PageAuth()
  async list(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const org = currentOrganization(ctx);
    const { items } = await this.tokens.list(org.id);
    const makers = await this.users.profilesOf(items.flatMap((t) => (t.createdBy ? [t.createdBy] : [])));
    const tokens = items.map((t) => ({ ...t, createdByName: (t.createdBy && makers.get(t.createdBy)?.name) || null }));
    sendPage(res, 200, scimTokensPage(ctx, { tokens, scimBaseUrl: `${this.config.baseUrl}/scim/v2`, notice: noticeOf(NOTICES, query) }));
  }

  @Get('new')
  @PageAuth()
  newForm(@Dashboard() ctx: DashboardContext, @Res() res: Response): void {
    sendPage(res, 200, newScimTokenPage(ctx, { name: '', expiresAt: '', errors: {} }));
  }

  @Post()
  @PageAuth()
  async create(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const expiresAt = body?.expiresAt === '' ? undefined : body?.expiresAt;
    const form = await readForm(CreateScimTokenDto, { name: body?.name, expiresAt }, { name: 'Name', expiresAt: 'Expiry' }, ['name', 'expiresAt']);
    if (!form.valid) {
      const errors = { ...form.errors };
      if (errors.expiresAt && !errors.expiresAt.includes('cannot be stored')) {
        errors.expiresAt =
          typeof expiresAt === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(expiresAt) && Date.parse(expiresAt) <= Date.now()
            ? 'Choose a day after today, or leave the expiry empty'
            : 'Enter the expiry as a date (year-month-day), or leave it empty';
      }
      return sendPage(res, 400, newScimTokenPage(ctx, {
        name: typeof body?.name === 'string' ? body.name : '',
        expiresAt: typeof expiresAt === 'string' && expiresAt.length <= 40 ? expiresAt : '',
        errors,
      }));
    }
    sendPage(res, 200, createdScimTokenPage(ctx, await this.tokens.create(orgId, form.value, ctx.actor)));
  }

  @Get(':tokenId/revoke')
  @PageAuth()
  async confirmRevoke(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('tokenId') tokenId: string, @Res() res: Response): Promise<void> {
    const token = (await this.tokens.list(orgId)).items.find((t) => t.id === tokenId);
    if (!token) throw new ScimTokenNotFoundError();
    sendPage(res, 200, revokeScimTokenPage(ctx, token));
  }

  @Post(':tokenId/revoke')
  @PageAuth()
  async revoke(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('tokenId') tokenId: string, @Res() res: Response): Promise<void> {
    await this.tokens.revoke(orgId, tokenId, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'scim-tokens')}?done=revoked`);
  }
}
