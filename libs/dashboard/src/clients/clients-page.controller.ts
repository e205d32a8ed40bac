import { Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { ClientPolicyService, OAuthGrantsService, OrganizationClientsService } from '@app/oauth';
import { roleSatisfies, UserDirectory } from '@app/tenancy';
import { sendPage, sendRedirect } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { sectionPath } from '../views/layout';
import { cursorParam, noticeOf } from '../views/when';
import { clientsPage, disconnectPage } from './clients.view';

const PAGE_SIZE = 25;
const NOTICES: Record<string, string> = {
  disconnected: 'Client disconnected. Its tokens are refused from now on.',
  organization_client_deleted: 'Organisation client deleted. Its tokens are refused from now on.',
};

/**
 * Connected clients (every member): the organisation's OAuth grants — a member's own, an
 * admin's view of all — and disconnecting one, which ends its tokens at once. REST:
 * `GET /api/me/agent-grants` and `…/revoke` for a person's own, `GET /api/organizations/:orgId/agent-grants`
 * and `…/revoke` for admins; the same `OAuthGrantsService`.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/clients')
export class ClientsPageController {
  constructor(
    private readonly grants: OAuthGrantsService,
    private readonly policies: ClientPolicyService,
    private readonly config: AppConfig,
    private readonly organizationClients: OrganizationClientsService,
    private readonly users: UserDirectory,
  ) {}

  @Get()
  @PageAuth({ minRole: 'member' })
  async list(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const org = currentOrganization(ctx);
    const admin = roleSatisfies(org.role, 'admin');
    const cursor = cursorParam(query);
    const page = await this.grants.listForOrganization(org.id, { userId: admin ? undefined : ctx.user.id, limit: PAGE_SIZE, cursor });
    sendPage(
      res,
      200,
      clientsPage(ctx, {
        grants: page.items,
        nextCursor: page.nextCursor,
        onFirstPage: cursor === undefined,
        admin,
        policy: admin ? await this.policies.get(org.id) : undefined,
        organizationClients: admin ? await this.ownClients(org.id) : undefined,
        mcpUrl: `${this.config.baseUrl}/api/mcp`,
        notice: noticeOf(NOTICES, query),
      }),
    );
  }

  @Get(':grantId/disconnect')
  @PageAuth({ minRole: 'member' })
  async confirm(@Dashboard() ctx: DashboardContext, @Param('grantId') grantId: string, @Res() res: Response): Promise<void> {
    const org = currentOrganization(ctx);
    const grant = await this.grants.findInOrganization(org.id, grantId, { userId: ctx.user.id, mayManageAll: roleSatisfies(org.role, 'admin') });
    sendPage(res, 200, disconnectPage(ctx, grant, grant.user?.id === ctx.user.id));
  }

  @Post(':grantId/disconnect')
  @PageAuth({ minRole: 'member' })
  async disconnect(@Dashboard() ctx: DashboardContext, @Param('grantId') grantId: string, @Res() res: Response): Promise<void> {
    const org = currentOrganization(ctx);
    await this.grants.revokeInOrganization(org.id, grantId, { mayManageAll: roleSatisfies(org.role, 'admin') }, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(org.id, 'clients')}?done=disconnected`);
  }

  /** The organisation's own clients with their makers' names (a maker whose account is gone has none). */
  private async ownClients(organizationId: string) {
    const clients = await this.organizationClients.list(organizationId);
    const makers = await this.users.profilesOf(clients.flatMap((c) => (c.createdBy ? [c.createdBy] : [])));
    return clients.map((c) => ({ ...c, createdByName: c.createdBy ? (makers.get(c.createdBy)?.name ?? null) : null }));
  }
}
