import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { clipText, DomainError, NotFoundError } from '@app/common';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { ApprovalDecisions, PolicyGate, type ApprovalViewer, type ApprovalView } from '@app/policy';
import { ProjectDirectory, UserDirectory } from '@app/tenancy';
import { sendPage, sendRedirect, singleParam } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { PageRecentSignIn, RecentSignInRefusal } from '../recent-sign-in-form';
import { noticeOf } from '../views/when';
import { approvalPage, approvalsListPage } from './approval.view';

const NOTICES: Record<string, string> = {
  approve: 'Approved. The agent may now run this call once, within 10 minutes.',
  deny: 'Denied. The agent cannot run this call.',
};

/**
 * The approval page at `{BASE_URL}/approvals/:id` (SPEC §10): what `GET …/approvals/:id` and
 * `POST …/approvals/:id/decision` do, as a page. It is outside `/orgs/:orgId` because its address
 * goes to approvers in the agent's answer and the webhook; the approval names its organisation,
 * and the person must be a member whose session opens it (else "not found"). A decision needs a
 * sign-in of the last 15 minutes: the form's password field re-authenticates first when filled in;
 * a single sign-on session is offered the step-up through its identity provider instead.
 */
@DashboardController('approvals')
export class ApprovalPageController {
  constructor(
    private readonly decisions: ApprovalDecisions,
    private readonly gate: PolicyGate,
    private readonly projects: ProjectDirectory,
    private readonly users: UserDirectory,
    private readonly recentSignIn: PageRecentSignIn,
  ) {}

  @Get(':id')
  @PageAuth()
  async show(@Dashboard() ctx: DashboardContext, @Param('id') id: string, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const { organization, viewer } = await this.open(ctx, id);
    await this.render(ctx, res, 200, organization, await this.decisions.view(organization.id, id, viewer), { notice: noticeOf(NOTICES, query) });
  }

  @Post(':id')
  @PageAuth()
  async decide(@Dashboard() ctx: DashboardContext, @Param('id') id: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const { organization, viewer } = await this.open(ctx, id);
    const decision = singleParam(body, 'decision').value;
    const reason = clipText(singleParam(body, 'reason').value?.trim() ?? '', 500) || null;
    const password = singleParam(body, 'password').value;
    const again = async (status: number, error: string, askPassword = false) =>
      this.render(ctx, res, status, organization, await this.decisions.view(organization.id, id, viewer), { error, askPassword });
    if (decision !== 'approve' && decision !== 'deny') return again(400, 'Choose Approve or Deny');
    try {
      await this.recentSignIn.require(ctx, password, 'A decision', organization.id);
      await this.decisions.decide(organization.id, id, viewer, decision, reason, ctx.actor);
    } catch (error) {
      if (error instanceof RecentSignInRefusal) return again(error.status, error.message, true);
      if (error instanceof DomainError && error.kind !== 'unavailable' && error.kind !== 'not_found') return again(error.kind === 'forbidden' ? 403 : 409, error.message);
      throw error;
    }
    sendRedirect(res, 303, `/approvals/${id}?done=${decision}`);
  }

  /** The approval's organisation, if the person is a member whose session opens it (else not found). */
  private async open(ctx: DashboardContext, id: string): Promise<{ organization: { id: string; name: string }; viewer: ApprovalViewer }> {
    const orgId = await this.decisions.organizationOf(id);
    const organization = ctx.organizations.find((o) => o.id === orgId);
    if (!organization) throw new NotFoundError('Approval');
    return { organization, viewer: { userId: ctx.user.id, role: organization.role } };
  }

  private async render(
    ctx: DashboardContext,
    res: Response,
    status: number,
    organization: { id: string; name: string },
    approval: ApprovalView,
    extra: { notice?: string; error?: string; askPassword?: boolean },
  ): Promise<void> {
    const [projects, people, clientName, earlier, target] = await Promise.all([
      this.projects.namesOf([approval.projectId]),
      this.users.profilesOf([approval.userId, approval.deniedBy, ...approval.approvedBy].filter((x): x is string => !!x)),
      approval.clientId ? this.gate.factSources.clientName(approval.clientId) : Promise.resolve(null),
      this.decisions.earlier(approval),
      this.decisions.targetOf(approval),
    ]);
    sendPage(
      res,
      status,
      approvalPage(ctx, {
        approval,
        organizationName: organization.name,
        projectName: projects.get(approval.projectId)?.name ?? null,
        clientName,
        people,
        earlier,
        target,
        ...extra,
      }),
    );
  }
}

/** The organisation's approvals the person may read (`/orgs/:orgId/approvals`), newest first. */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/approvals')
export class ApprovalsListPageController {
  constructor(private readonly decisions: ApprovalDecisions) {}

  @Get()
  @PageAuth({ minRole: 'member' })
  async list(@Dashboard() ctx: DashboardContext, @Res() res: Response): Promise<void> {
    const organization = currentOrganization(ctx);
    const approvals = await this.decisions.list(organization.id, { userId: ctx.user.id, role: organization.role }, null);
    const order = (a: ApprovalView) => (a.status === 'pending' ? 0 : 1);
    sendPage(res, 200, approvalsListPage(ctx, [...approvals].sort((a, b) => order(a) - order(b))));
  }
}
