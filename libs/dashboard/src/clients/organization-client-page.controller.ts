import { Body, Get, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { ClientRegistrationService, CreateConfidentialClientDto, OrganizationClientsService } from '@app/oauth';
import { sendPage, sendRedirect } from '@app/web';
import { Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { sectionPath } from '../views/layout';
import { createdOrganizationClientPage, deleteOrganizationClientPage, newOrganizationClientPage, rotatedOrganizationClientPage } from './organization-client.view';

/**
 * Organisation clients for ID-JAGs on the Connected clients page (admins): making one, a new
 * secret, deleting one; what `…/oauth-clients`, `…/rotate` and `DELETE …/:clientId` do, as pages.
 * A secret appears only in the answer to the POST that made it.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/clients/organization-clients')
export class OrganizationClientPageController {
  constructor(
    private readonly registrations: ClientRegistrationService,
    private readonly clients: OrganizationClientsService,
  ) {}

  @Get('new')
  @PageAuth()
  newForm(@Dashboard() ctx: DashboardContext, @Res() res: Response): void {
    sendPage(res, 200, newOrganizationClientPage(ctx, { clientName: '' }));
  }

  @Post()
  @PageAuth()
  async create(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const form = await readForm(CreateConfidentialClientDto, { clientName: body?.clientName }, { clientName: 'Name' }, ['clientName']);
    if (!form.valid) {
      const clientName = typeof body?.clientName === 'string' && body.clientName.length <= 400 ? body.clientName : '';
      return sendPage(res, 400, newOrganizationClientPage(ctx, { clientName, error: form.errors.clientName }));
    }
    const created = await this.registrations.createConfidential(orgId, form.value.clientName, ctx.actor);
    sendPage(res, 200, createdOrganizationClientPage(ctx, created));
  }

  @Post(':clientId/rotate')
  @PageAuth()
  async rotate(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('clientId') clientId: string, @Res() res: Response): Promise<void> {
    const client = await this.clients.get(orgId, clientId);
    const rotated = await this.clients.rotate(orgId, clientId, ctx.actor);
    sendPage(res, 200, rotatedOrganizationClientPage(ctx, client.clientName, rotated));
  }

  @Get(':clientId/delete')
  @PageAuth()
  async confirmDelete(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('clientId') clientId: string, @Res() res: Response): Promise<void> {
    sendPage(res, 200, deleteOrganizationClientPage(ctx, await this.clients.get(orgId, clientId)));
  }

  @Post(':clientId/delete')
  @PageAuth()
  async remove(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('clientId') clientId: string, @Res() res: Response): Promise<void> {
    await this.clients.remove(orgId, clientId, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'clients')}?done=organization_client_deleted`);
  }
}
