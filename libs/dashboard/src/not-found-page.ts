import { Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { requestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { actorOf } from '@app/credentials';
import { readSessionCookie, html, HtmlPage, page } from '@app/web';
import { SessionTokenService, SignInService } from '@app/people';
import { dashboardCsrfToken, DashboardContext } from './dashboard-context';
import { dashboardPage } from './views/layout';

/**
 * Paths whose 404 stays JSON: the REST API and the MCP endpoint (`/api/…`), the discovery
 * documents and the probes. Every other path is a page's, so a mistyped page address answers a page.
 */
const MACHINE_PATH = /^\/(api|\.well-known|health|metrics|mcp)(\/|$)/;

/** Whether a 404 for this request is answered with an HTML page rather than JSON. */
export function isPageRequest(req: Pick<Request, 'path' | 'method'>): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && !MACHINE_PATH.test(req.path);
}

/**
 * The page for an address no route serves: with the dashboard's top bar and sections when the
 * request carries a live session (the organisation in the path when the person belongs to it and
 * the session opens it),
 * else a plain page with a link to sign in.
 */
@Injectable()
export class NotFoundPage {
  private readonly logger = new Logger('Dashboard');

  constructor(
    private readonly config: AppConfig,
    private readonly sessions: SessionTokenService,
    private readonly signIn: SignInService,
  ) {}

  async render(req: Request): Promise<HtmlPage> {
    const body = html`<div class="card" role="alert" aria-labelledby="error-title">
<h1 id="error-title">Page not found</h1>
<p>There is no page at this address. Check the address, or go back to the dashboard.</p>
<p><a href="/">Back to the dashboard</a></p>
</div>`;
    const ctx = await this.contextOf(req).catch((error: unknown) => {
      this.logger.warn(`the not-found page is shown without navigation: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
    return ctx ? dashboardPage(ctx, { title: 'Page not found', body }) : page('Page not found', body);
  }

  private async contextOf(req: Request): Promise<DashboardContext | null> {
    const jwt = readSessionCookie(req, this.config);
    if (!jwt) return null;
    const principal = await this.sessions.resolve(jwt);
    if (!principal || principal.kind !== 'session') return null;
    const me = await this.signIn.me(principal);
    const organizations = me.memberships.map((m) => ({ ...m.organization, role: m.role }));
    const orgId = /^\/orgs\/([^/]+)/.exec(req.path)?.[1];
    return {
      principal,
      user: { id: me.user.id, name: me.user.name, email: me.user.email },
      organizations,
      closedOrganizations: me.closedOrganizations,
      organization: orgId ? organizations.find((o) => o.id === orgId) : undefined,
      csrf: dashboardCsrfToken(this.config.sessionSecret, principal),
      actor: actorOf(principal, requestOrigin(req)),
    };
  }
}
