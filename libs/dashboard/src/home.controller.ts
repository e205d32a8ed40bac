import { Get, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { clearSignInCookies, html, sendPage, sendRedirect } from '@app/web';
import { SessionReach, SessionTokenService } from '@app/people';
import { Dashboard, DashboardContext } from './dashboard-context';
import { DashboardController } from './dashboard-controller.decorator';
import { closedOrganizationNote, dashboardPage, sectionPath } from './views/layout';

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
    private readonly reach: SessionReach,
  ) {}

  @Get()
  @PageAuth()
  async home(@Dashboard() ctx: DashboardContext, @Res() res: Response): Promise<void> {
    const first = ctx.organizations[0];
    if (first) return sendRedirect(res, 303, sectionPath(first.id, 'projects'));
    if (ctx.closedOrganizations.length > 0) {
      const closed = await Promise.all(
        ctx.closedOrganizations.map(async (o) => ({ ...o, href: await this.reach.signInHref(ctx.principal, o.refusal, sectionPath(o.id, 'projects')) })),
      );
      return sendPage(
        res,
        200,
        dashboardPage(ctx, {
          title: 'Sign in to open your organisations',
          body: html`<div class="card"><h1>Sign in to open your organisations</h1>
<p>This session does not open your organisations: each needs you to sign in the way it requires.</p>
<ul>${closed.map(
            (o) => html`<li>${o.name} (${closedOrganizationNote(o.refusal)}): <a href="${o.href}">${o.refusal === 'sso_required' ? 'Sign in with single sign-on' : 'Sign in again'}</a></li>`,
          )}</ul></div>`,
        }),
      );
    }
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
    clearSignInCookies(res, this.config);
    sendRedirect(res, 303, '/login');
  }

  @Post('sign-out-everywhere')
  @PageAuth()
  async signOutEverywhere(@Dashboard() ctx: DashboardContext, @Res() res: Response): Promise<void> {
    await this.sessions.endAll(ctx.user.id);
    clearSignInCookies(res, this.config);
    sendRedirect(res, 303, '/login');
  }
}
