import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { ChangeMemberRoleDto, HandOverQueryDto, InvitationsService, InviteMemberDto, LastAdminError, MembersService, PasswordResetService } from '@app/people';
import { sendPage, sendRedirect } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { sectionPath } from '../views/layout';
import { queryCursor } from '../query';
import { demoteMemberPage, invitationCreatedPage, removeMemberPage, resetLinkPage, withdrawInvitationPage } from './member-actions.view';
import { InviteForm, invitationsPage, MembersView, membersPage } from './members.view';

const NOTICES: Record<string, string> = {
  'role-changed': 'Role changed.',
  removed: 'Member removed: their access to this organisation has ended.',
  withdrawn: 'Invitation withdrawn: its link no longer works.',
};

/** How many pending invitations the Members page shows before "Next page". */
const INVITATIONS_ON_MEMBERS_PAGE = 20;

/**
 * The Members section: what `…/members` and `…/invitations` of the REST API do, as pages
 * (admins only, like their REST routes). Invitation and reset links appear only in the answer
 * to the post that made them.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/members')
export class MembersPageController {
  constructor(
    private readonly members: MembersService,
    private readonly invitations: InvitationsService,
    private readonly resets: PasswordResetService,
  ) {}

  @Get()
  @PageAuth()
  async list(@Dashboard() ctx: DashboardContext, @Query('cursor') cursor: unknown, @Query('done') done: unknown, @Res() res: Response): Promise<void> {
    sendPage(res, 200, membersPage(ctx, await this.view(ctx, queryCursor(cursor), { notice: NOTICES[String(done)] })));
  }

  @Get('invitations')
  @PageAuth()
  async pendingInvitations(@Dashboard() ctx: DashboardContext, @Query('cursor') cursor: unknown, @Query('done') done: unknown, @Res() res: Response): Promise<void> {
    const after = queryCursor(cursor);
    const page = await this.invitations.page(currentOrganization(ctx).id, { status: 'pending', cursor: after });
    sendPage(res, 200, invitationsPage(ctx, { invitations: page.items, nextCursor: page.nextCursor, onFirstPage: after === undefined, notice: NOTICES[String(done)] }));
  }

  @Post('invitations')
  @PageAuth()
  async invite(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const form = await readForm(InviteMemberDto, body, { email: 'Email', role: 'Role' }, ['email', 'role']);
    if (!form.valid) {
      const invite: InviteForm = { email: text(body?.email), role: text(body?.role), errors: form.errors };
      if (invite.errors.email?.startsWith('Email:')) invite.errors.email = 'Enter an email address like name@example.com';
      if (invite.errors.role) invite.errors.role = 'Choose Admin or Member';
      return sendPage(res, 400, membersPage(ctx, await this.view(ctx, undefined, { invite })));
    }
    const created = await this.invitations.invite(orgId, { email: form.value.email, role: form.value.role }, ctx.actor);
    sendPage(res, 200, invitationCreatedPage(ctx, created));
  }

  @Get('invitations/:invitationId/withdraw')
  @PageAuth()
  async confirmWithdrawal(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('invitationId') invitationId: string, @Res() res: Response): Promise<void> {
    sendPage(res, 200, withdrawInvitationPage(ctx, await this.invitations.getPending(orgId, invitationId)));
  }

  @Post('invitations/:invitationId/withdraw')
  @PageAuth()
  async withdraw(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('invitationId') invitationId: string, @Res() res: Response): Promise<void> {
    await this.invitations.withdraw(orgId, invitationId, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'members')}?done=withdrawn`);
  }

  @Post(':userId/role')
  @PageAuth()
  async changeRole(
    @Dashboard() ctx: DashboardContext,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() body: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const member = await this.members.get(orgId, userId);
    const form = await readForm(ChangeMemberRoleDto, body, { role: 'Role' }, ['role']);
    if (!form.valid) {
      return sendPage(res, 400, membersPage(ctx, await this.view(ctx, undefined, { roleError: { userId, message: 'Choose Admin or Member' } })));
    }
    // Demoting an admin who created live API keys: first say that they end, and offer to take them over (as removal does).
    const demoting = member.role === 'admin' && form.value.role === 'member';
    if (demoting && body?.confirm !== 'true' && userId !== ctx.user.id) {
      const preview = await this.members.removalPreview(orgId, userId);
      if (preview.lastAdmin) return sendPage(res, 409, membersPage(ctx, await this.view(ctx, undefined, { alert: lastAdminAlert(ctx, member.name) })));
      if (preview.apiKeys.length > 0) return sendPage(res, 200, demoteMemberPage(ctx, preview));
    }
    const handOver = demoting ? await readForm(HandOverQueryDto, body, { handOver: 'Take over their API keys' }, ['handOver']) : undefined;
    if (handOver && !handOver.valid) {
      return sendPage(res, 400, demoteMemberPage(ctx, { ...(await this.members.removalPreview(orgId, userId)), alert: 'Take over their API keys: tick the box or leave it empty.' }));
    }
    const change = { role: form.value.role, handOver: handOver?.value.handOver === 'true' };
    if (!(await keepsAnAdmin(() => this.members.changeRole(orgId, userId, change, ctx.actor)))) {
      return sendPage(res, 409, membersPage(ctx, await this.view(ctx, undefined, { alert: lastAdminAlert(ctx, member.name) })));
    }
    // A person who made themselves a member can no longer open this page.
    if (userId === ctx.user.id && form.value.role !== 'admin') return sendRedirect(res, 303, sectionPath(orgId, 'projects'));
    sendRedirect(res, 303, `${sectionPath(orgId, 'members')}?done=role-changed`);
  }

  @Post(':userId/reset-link')
  @PageAuth()
  async resetLink(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('userId') userId: string, @Res() res: Response): Promise<void> {
    const member = await this.members.get(orgId, userId);
    const issued = await this.resets.issue(orgId, userId, ctx.actor);
    sendPage(res, 200, resetLinkPage(ctx, member, issued));
  }

  @Get(':userId/remove')
  @PageAuth()
  async confirmRemoval(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('userId') userId: string, @Res() res: Response): Promise<void> {
    sendPage(res, 200, removeMemberPage(ctx, await this.members.removalPreview(orgId, userId)));
  }

  @Post(':userId/remove')
  @PageAuth()
  async remove(
    @Dashboard() ctx: DashboardContext,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() body: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const preview = await this.members.removalPreview(orgId, userId);
    const form = await readForm(HandOverQueryDto, body, { handOver: 'Take over their API keys' }, ['handOver']);
    if (!form.valid) return sendPage(res, 400, removeMemberPage(ctx, { ...preview, alert: 'Take over their API keys: tick the box or leave it empty.' }));
    if (!(await keepsAnAdmin(() => this.members.remove(orgId, userId, { handOver: form.value.handOver === 'true' }, ctx.actor)))) {
      return sendPage(res, 409, removeMemberPage(ctx, { ...preview, lastAdmin: true, alert: lastAdminAlert(ctx, preview.member.name) }));
    }
    if (userId === ctx.user.id) return sendRedirect(res, 303, '/');
    sendRedirect(res, 303, `${sectionPath(orgId, 'members')}?done=removed`);
  }

  private async view(ctx: DashboardContext, cursor: string | undefined, extra: Partial<MembersView>): Promise<MembersView> {
    const orgId = currentOrganization(ctx).id;
    const [members, invitations] = await Promise.all([
      this.members.page(orgId, { cursor }),
      this.invitations.page(orgId, { status: 'pending', limit: INVITATIONS_ON_MEMBERS_PAGE }),
    ]);
    return {
      members: members.items,
      nextCursor: members.nextCursor,
      onFirstPage: cursor === undefined,
      invitations: invitations.items,
      invitationsNextCursor: invitations.nextCursor,
      ...extra,
    };
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Makes a change that must leave the organisation an admin: false, and nothing changed, when it would leave none. */
async function keepsAnAdmin(change: () => Promise<unknown>): Promise<boolean> {
  try {
    await change();
    return true;
  } catch (error) {
    if (error instanceof LastAdminError) return false;
    throw error;
  }
}

function lastAdminAlert(ctx: DashboardContext, name: string): string {
  return `${name} is the only admin of ${currentOrganization(ctx).name}, which must keep one: make another member an admin first.`;
}
