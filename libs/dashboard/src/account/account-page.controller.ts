import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { NotFoundError } from '@app/common';
import { PageAuth } from '@app/credentials';
import { clearSignInCookies, setSessionCookie, sendPage, sendRedirect, singleParam } from '@app/web';
import { SessionTokenService, TooManyLoginAttemptsError, ChangePasswordDto, SignInService, WrongCurrentPasswordError } from '@app/people';
import { Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { accountPage, AccountView } from './account.view';

const LABELS = { currentPassword: 'Current password', newPassword: 'New password' };

/**
 * "Your account" (`/account`, any signed-in person): their organisations with their role, their
 * sessions (as `GET /api/auth/sessions`), and the password change, on `SignInService.changePassword` as `POST /api/auth/password`.
 */
@DashboardController('account')
export class AccountPageController {
  constructor(
    private readonly config: AppConfig,
    private readonly signIn: SignInService,
    private readonly sessions: SessionTokenService,
  ) {}

  @Get()
  @PageAuth()
  async show(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const done = singleParam(query, 'done').value;
    const notice = done === 'password-changed' ? 'Password changed: your other sessions have ended.' : done === 'session-ended' ? 'That session is signed out.' : undefined;
    sendPage(res, 200, accountPage(ctx, { ...(await this.base(ctx)), notice }));
  }

  /** Signs out one of the person's listed sessions; this one's sign-out goes back to sign in. */
  @Post('sessions/:sessionId/sign-out')
  @PageAuth()
  async endSession(@Dashboard() ctx: DashboardContext, @Param('sessionId') sessionId: string, @Res() res: Response): Promise<void> {
    if (!(await this.sessions.endOwn(ctx.user.id, sessionId))) throw new NotFoundError('Session');
    if (sessionId === ctx.principal.sessionId) {
      clearSignInCookies(res, this.config);
      return sendRedirect(res, 303, '/login');
    }
    sendRedirect(res, 303, '/account?done=session-ended');
  }

  @Post('password')
  @PageAuth()
  async changePassword(@Dashboard() ctx: DashboardContext, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const form = await readForm(ChangePasswordDto, body, LABELS, ['currentPassword', 'newPassword']);
    if (!form.valid) {
      const errors = { ...form.errors };
      if (errors.newPassword && /longer|shorter|at most/.test(errors.newPassword)) errors.newPassword = 'New password must be between 12 and 1024 characters';
      return sendPage(res, 400, accountPage(ctx, { ...(await this.base(ctx)), errors }));
    }
    try {
      const session = await this.signIn.changePassword(ctx.user.id, form.value, ctx.actor.origin ?? {});
      setSessionCookie(res, session.accessToken, this.config);
      sendRedirect(res, 303, '/account?done=password-changed');
    } catch (error) {
      if (error instanceof WrongCurrentPasswordError) {
        return sendPage(res, 400, accountPage(ctx, { ...(await this.base(ctx)), errors: { currentPassword: 'That is not your current password.' } }));
      }
      if (error instanceof TooManyLoginAttemptsError) {
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
        return sendPage(res, 429, accountPage(ctx, { ...(await this.base(ctx)), errors: { currentPassword: error.pageMessage } }));
      }
      throw error;
    }
  }

  private async base(ctx: DashboardContext): Promise<AccountView> {
    const sessions = await this.sessions.list(ctx.user.id);
    return { currentSessionId: ctx.principal.sessionId, sessions };
  }
}
