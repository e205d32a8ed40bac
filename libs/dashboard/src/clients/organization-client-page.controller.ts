import { Body, Get, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { ClientRegistrationService, CreateConfidentialClientDto } from '@app/oauth';
import { sendPage } from '@app/web';
import { Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { createdOrganizationClientPage, newOrganizationClientPage } from './organization-client.view';

/**
 * Making an organisation client for ID-JAGs on the Connected clients page (admins): what
 * `POST /api/organizations/:orgId/oauth-clients` does, as a page; the secret appears only in the
 * answer to the POST.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/clients/organization-clients')
export class OrganizationClientPageController {
  constructor(private readonly registrations: ClientRegistrationService) {}

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
}
