import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { ProjectsService } from '@app/projects';
import { CreateServiceKeyDto, ServiceKeysService } from '@app/service-keys';
import { sendPage, sendRedirect } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { sectionPath } from '../views/layout';
import { readPicker } from '../views/picker';
import { DERIVE_PICKER, deriveChoices, readPage } from './service-keys.pages';
import { serviceKeyPage } from './service-key.view';
import { revokeKeyPage, serviceKeysPage } from './service-keys.view';

const LIST_NOTICES: Record<string, string> = { revoked: 'Service key revoked. Every token derived from it is refused from now on.' };
const KEY_NOTICES: Record<string, string> = {
  created: 'Service key created. Derive a token below for each project a machine should reach.',
  'token-revoked': 'Token revoked. It is refused from now on.',
};

/**
 * The Service keys section: what `…/agent-service-keys` (list, create, get, revoke) does, as
 * pages, on the same `ServiceKeysService`. Admins only, like the REST routes.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/service-keys')
export class ServiceKeysPageController {
  constructor(
    private readonly serviceKeys: ServiceKeysService,
    private readonly projects: ProjectsService,
  ) {}

  @Get()
  @PageAuth()
  async list(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const org = currentOrganization(ctx);
    const page = await readPage(query);
    const keys = await this.serviceKeys.list(org.id, page);
    sendPage(
      res,
      200,
      serviceKeysPage(ctx, { keys: keys.items, nextCursor: keys.nextCursor, onFirstPage: !page.cursor, limit: page.limit, notice: LIST_NOTICES[String(query.done)] }),
    );
  }

  @Post()
  @PageAuth()
  async create(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const form = await readForm(CreateServiceKeyDto, body, { name: 'Name' }, ['name']);
    if (!form.valid) {
      const keys = await this.serviceKeys.list(orgId);
      const name = typeof body?.name === 'string' ? body.name : '';
      return sendPage(
        res,
        400,
        serviceKeysPage(ctx, { keys: keys.items, nextCursor: keys.nextCursor, onFirstPage: true, form: { name, error: form.errors.name } }),
      );
    }
    const key = await this.serviceKeys.create(orgId, { name: form.value.name }, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'service-keys')}/${key.id}?done=created`);
  }

  @Get(':keyId')
  @PageAuth()
  async key(
    @Dashboard() ctx: DashboardContext,
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @Query() query: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const key = await this.serviceKeys.get(orgId, keyId);
    const page = await readPage(query);
    const picker = readPicker(query, DERIVE_PICKER);
    const tokens = await this.serviceKeys.listTokens(orgId, keyId, page);
    const [choices, tokenProjects] = await Promise.all([
      deriveChoices(this.projects, orgId, picker),
      this.projects.namesOf(orgId, tokens.items.map((t) => t.projectId)),
    ]);
    sendPage(
      res,
      200,
      serviceKeyPage(ctx, {
        key,
        tokens: tokens.items,
        nextCursor: tokens.nextCursor,
        onFirstPage: !page.cursor,
        limit: page.limit,
        choices,
        tokenProjects,
        notice: KEY_NOTICES[String(query.done)],
      }),
    );
  }

  @Get(':keyId/revoke')
  @PageAuth()
  async confirmRevoke(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('keyId') keyId: string, @Res() res: Response): Promise<void> {
    sendPage(res, 200, revokeKeyPage(ctx, await this.serviceKeys.get(orgId, keyId)));
  }

  @Post(':keyId/revoke')
  @PageAuth()
  async revoke(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('keyId') keyId: string, @Res() res: Response): Promise<void> {
    await this.serviceKeys.revoke(orgId, keyId, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'service-keys')}?done=revoked`);
  }
}
