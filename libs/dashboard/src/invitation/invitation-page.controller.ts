import { Body, Get, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { InvitationForAnotherEmailError, InvitationsService } from '@app/people';
import { AppConfig } from '@app/config';
import { PageAuth } from '@app/credentials';
import { setSessionCookie, sendPage, sendRedirect, singleParam } from '@app/web';
import { InvalidInvitationError, normalizeEmail } from '@app/tenancy';
import { Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { sectionPath } from '../views/layout';
import { invitationGonePage, invitationPage, InvitationView } from './invitation.view';

/**
 * An invitation link opened by someone signed in (`/signup?invitation=…` sends a signed-in
 * browser here, and sign-in from that page comes back here): shows the organisation and the
 * role, and accepts it as this account with `InvitationsService.accept`, as
 * `POST /api/invitations/accept` does, but only for the invited email.
 */
@DashboardController('invitation')
export class InvitationPageController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @PageAuth()
  async show(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const view = await this.view(ctx, singleParam(query, 'token').value);
    if (!view) return sendPage(res, 404, invitationGonePage(ctx));
    sendPage(res, 200, invitationPage(ctx, view));
  }

  @Post('accept')
  @PageAuth()
  async accept(@Dashboard() ctx: DashboardContext, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const token = singleParam(body, 'token').value ?? '';
    try {
      const joined = await this.invitations.accept({ token }, ctx.actor, { onlyForEmail: ctx.user.email, session: ctx.principal });
      // The accepting session has ended: the new one opens the organisation (SPEC §10).
      if (joined.accessToken) setSessionCookie(res, joined.accessToken, this.config);
      sendRedirect(res, 303, `${sectionPath(joined.organizationId, 'projects')}?done=joined`);
    } catch (error) {
      if (error instanceof InvalidInvitationError) return sendPage(res, 404, invitationGonePage(ctx));
      if (!(error instanceof InvitationForAnotherEmailError)) throw error;
      const view = await this.view(ctx, token);
      if (!view) return sendPage(res, 404, invitationGonePage(ctx));
      sendPage(res, 403, invitationPage(ctx, view));
    }
  }

  private async view(ctx: DashboardContext, token: string | undefined): Promise<InvitationView | null> {
    if (!token) return null;
    const open = await this.invitations.preview(token, ctx.user.id);
    if (!open) return null;
    return {
      token,
      organizationId: open.organizationId,
      organizationName: open.organizationName,
      role: open.role,
      email: open.email,
      alreadyMember: open.alreadyMember,
      forAnotherEmail: normalizeEmail(open.email) !== normalizeEmail(ctx.user.email),
    };
  }
}
