import { Get, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { clearSessionCookie, OrganizationRoute, PageAuth, SessionTokenService } from '@app/credentials';
import { html, sendPage, sendRedirect } from '@app/web';
import { Dashboard, DashboardContext } from './dashboard-context';
import { DashboardController } from './dashboard-controller.decorator';
import { dashboardPage, sectionPath } from './views/layout';

/**
 * The dashboard's entry: `/` opens the first organisation of the signed-in person (anyone else is
 * sent to sign in, where a link leads to sign-up), and the two sign-outs, which end the session on
 * the server, not only the cookie.
 */
@DashboardController()
export class HomeController {
  constructor(
    private readonly config: AppConfig,
    private readonly sessions: SessionTokenService,
  ) {}

  @Get()
  @PageAuth()
  home(@Dashboard() ctx: DashboardContext, @Res() res: Response): void {
    const first = ctx.organizations[0];
    if (first) return sendRedirect(res, 303, sectionPath(first.id, 'projects'));
    sendPage(
      res,
      200,
      dashboardPage(ctx, {
        title: 'No organisation yet',
        body: html`<div class="card"><h1>No organisation yet</h1>
<p>You are not a member of any organisation. Ask an administrator of yours for an invitation link, then open it while signed in.</p></div>`,
      }),
    );
  }

  @Get('orgs/:orgId')
  @PageAuth({ minRole: 'member' })
  @OrganizationRoute('orgId')
  organization(@Param('orgId') orgId: string, @Res() res: Response): void {
    sendRedirect(res, 303, sectionPath(orgId, 'projects'));
  }

  @Post('sign-out')
  @PageAuth()
  async signOut(@Dashboard() ctx: DashboardContext, @Res() res: Response): Promise<void> {
    await this.sessions.end(ctx.principal);
    clearSessionCookie(res, this.config);
    sendRedirect(res, 303, '/login');
  }

  @Post('sign-out-everywhere')
  @PageAuth()
  async signOutEverywhere(@Dashboard() ctx: DashboardContext, @Res() res: Response): Promise<void> {
    await this.sessions.endAll(ctx.user.id);
    clearSessionCookie(res, this.config);
    sendRedirect(res, 303, '/login');
  }
}
