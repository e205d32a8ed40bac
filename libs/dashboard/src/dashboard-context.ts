import { createHmac, timingSafeEqual } from 'node:crypto';
import { CanActivate, createParamDecorator, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AuditActor, requestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { actorOf } from '@app/credentials';
import { ClosedOrganization, SessionPrincipal, SignInService } from '@app/people';
import { MembershipRole } from '@app/tenancy';
import { postedFromElsewhere } from '@app/web';

/** What every dashboard page knows of the person and the organisation it shows. */
export interface DashboardContext {
  principal: SessionPrincipal;
  user: { id: string; name: string; email: string };
  /** Every organisation the person belongs to that this session opens, for the switcher (the order they joined them). */
  organizations: { id: string; name: string; role: MembershipRole }[];
  /** The person's other organisations, which this session does not open (single sign-on, `SessionReach`), and why. */
  closedOrganizations: ClosedOrganization<{ id: string; name: string; role: MembershipRole }>[];
  /** The organisation in the path (`/orgs/:orgId/…`); undefined on pages outside one. */
  organization?: { id: string; name: string; role: MembershipRole };
  /** The hidden field every form of the page carries. */
  csrf: string;
  /** The person and the request's origin, what every service that records a change takes last. */
  actor: AuditActor;
}

type DashboardRequest = Request & { principal?: SessionPrincipal; dashboard?: DashboardContext };

/** The form field that carries the dashboard's CSRF token. */
export const CSRF_FIELD = 'csrf';

/**
 * Runs after the global guard (which has checked the session cookie and the organisation role,
 * `@PageAuth`): loads who the person is and which organisations they belong to (those this
 * session opens, and the others apart), and refuses a
 * form post without this session's CSRF token or marked by the browser as coming from another
 * site. The token is HMAC(SESSION_SECRET, session id): it dies with the session, needs no
 * storage, and every instance sharing the secret accepts it.
 */
@Injectable()
export class DashboardContextGuard implements CanActivate {
  private readonly ownOrigin: string;

  constructor(
    private readonly config: AppConfig,
    private readonly signIn: SignInService,
  ) {
    this.ownOrigin = new URL(config.baseUrl).origin;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<DashboardRequest>();
    const principal = req.principal;
    if (!principal || principal.kind !== 'session') throw new ForbiddenException('This page needs a signed-in person');
    const csrf = this.tokenFor(principal);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const submitted = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
      if (postedFromElsewhere(req, this.ownOrigin) || !sameToken(submitted, csrf)) {
        throw new ForbiddenException('This form has expired or did not come from this site. Go back, reload the page and try again.');
      }
    }
    const me = await this.signIn.me(principal);
    const organizations = me.memberships.map((m) => ({ ...m.organization, role: m.role }));
    const orgId = req.params?.orgId;
    req.dashboard = {
      principal,
      user: { id: me.user.id, name: me.user.name, email: me.user.email },
      organizations,
      closedOrganizations: me.closedOrganizations,
      organization: typeof orgId === 'string' ? organizations.find((o) => o.id === orgId) : undefined,
      csrf,
      actor: actorOf(principal, requestOrigin(req)),
    };
    return true;
  }

  private tokenFor(principal: SessionPrincipal): string {
    return dashboardCsrfToken(this.config.sessionSecret, principal);
  }
}

/** The CSRF token of a session's dashboard forms: HMAC(SESSION_SECRET, session id). */
export function dashboardCsrfToken(sessionSecret: string, principal: SessionPrincipal): string {
  return createHmac('sha256', sessionSecret).update(`dashboard-form:${principal.sessionId}`).digest('base64url');
}

function sameToken(submitted: unknown, expected: string): boolean {
  if (typeof submitted !== 'string') return false;
  const a = Buffer.from(submitted);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The page's `DashboardContext` (set by `DashboardContextGuard`). */
export const Dashboard = createParamDecorator((_: unknown, ctx: ExecutionContext): DashboardContext => {
  const context = ctx.switchToHttp().getRequest<DashboardRequest>().dashboard;
  if (!context) throw new ForbiddenException('This page needs a signed-in person');
  return context;
});

/** The organisation of a page under `/orgs/:orgId` (the global guard has already checked the membership). */
export function currentOrganization(ctx: DashboardContext): { id: string; name: string; role: MembershipRole } {
  if (!ctx.organization) throw new ForbiddenException('This page belongs to an organisation');
  return ctx.organization;
}
