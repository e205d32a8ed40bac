import { Body, Controller, Get, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuditOrigin, RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { OAuthGrantStore } from '@app/credential-store';
import { Public } from '@app/credentials';
import { readSessionCookie, postedFromElsewhere, sendPage, sendRedirect, singleParam } from '@app/web';
import { SessionPrincipal, SessionTokenService } from '@app/people';
import { isUuid } from '@app/common';
import { PROJECT_NAME_MAX_LENGTH } from '@app/tenancy';
import { AuthorizeRequestValidator } from './authorize-request.validator';
import { ConsentDecisionService } from './consent-decision.service';
import { ConsentSearch, ConsentViewService } from './consent-view.service';
import { OAuthPageErrorFilter } from './oauth-exception.filters';
import { AuthorizeRedirectErrorCode, OAuthPageError } from './oauth.errors';
import { consentPage } from './views/consent.view';

/**
 * `GET /api/agent/oauth/authorize` validates the request and shows the consent page (or sends
 * the person to sign in first); `POST` takes the decision, refused when the browser marks the
 * post as coming from another site (on top of the form's CSRF token).
 */
@Public()
@ApiExcludeController()
@UseFilters(OAuthPageErrorFilter)
@Controller('api/agent/oauth/authorize')
export class AuthorizeController {
  private readonly ownOrigin: string;

  constructor(
    private readonly config: AppConfig,
    private readonly validator: AuthorizeRequestValidator,
    private readonly consent: ConsentViewService,
    private readonly decisions: ConsentDecisionService,
    private readonly sessions: SessionTokenService,
    private readonly grants: OAuthGrantStore,
  ) {
    this.ownOrigin = new URL(config.baseUrl).origin;
  }

  @Get()
  async authorize(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const checked = await this.validator.check(query, req.ip ?? null);
    const session = await this.session(req);
    const userId = session?.userId ?? null;
    if (checked.kind === 'redirect') {
      // RFC 9700 §4.11.2: an error goes back to the client only for a signed-in person who already
      // trusts it (a live grant); otherwise anyone could register a client and use this endpoint
      // as a redirect from our domain to any address.
      if (userId && (await this.grants.hasLiveGrant(userId, checked.clientId))) return sendRedirect(res, 302, checked.location);
      throw new OAuthPageError(400, 'Invalid request', UNTRUSTED_ERROR_DETAIL[checked.error]);
    }
    if (!session) return sendRedirect(res, 302, `/login?next=${encodeURIComponent(req.originalUrl)}`);
    const search = consentSearch(query);
    const { requestId, csrfToken } = await this.consent.createPending(session.userId, checked.request);
    const view = await this.consent.view(requestId, csrfToken, session, { search });
    sendPage(res, 200, consentPage(view));
  }

  @Post()
  async decide(@Body() body: Record<string, unknown>, @AuditOrigin() origin: RequestOrigin, @Req() req: Request, @Res() res: Response): Promise<void> {
    if (postedFromElsewhere(req, this.ownOrigin)) {
      throw new OAuthPageError(403, 'Form sent from another site', 'This answer did not come from the consent page. Start again from the application.');
    }
    const session = await this.session(req);
    if (!session) {
      throw new OAuthPageError(401, 'Signed out', 'Your session ended before you answered. Start again from the application.');
    }
    const outcome = await this.decisions.decide(session, body ?? {}, origin);
    if (outcome.kind === 'redirect') return sendRedirect(res, 303, outcome.location);
    sendPage(res, outcome.status, consentPage(outcome.view));
  }

  private async session(req: Request): Promise<SessionPrincipal | null> {
    const jwt = readSessionCookie(req, this.config);
    if (!jwt) return null;
    return this.sessions.resolve(jwt);
  }
}

/**
 * The consent page's project search in the authorize URL (`project_query`, and `project_org` with
 * `project_cursor` for an organisation's next matches): each at most once, the text at most a
 * project name's length (400 naming the parameter otherwise).
 */
function consentSearch(query: Record<string, unknown>): ConsentSearch {
  const read = (name: string) => {
    const param = singleParam(query, name);
    if (param.duplicate) throw new OAuthPageError(400, 'Invalid request', `${name} must be given once.`);
    return param.value;
  };
  const text = (read('project_query') ?? '').trim();
  if (text.length > PROJECT_NAME_MAX_LENGTH) throw new OAuthPageError(400, 'Invalid request', `project_query must be at most ${PROJECT_NAME_MAX_LENGTH} characters.`);
  const organizationId = read('project_org');
  const cursor = read('project_cursor');
  if ((organizationId === undefined) !== (cursor === undefined)) {
    throw new OAuthPageError(400, 'Invalid request', 'project_org and project_cursor go together.');
  }
  if (organizationId !== undefined && !isUuid(organizationId)) throw new OAuthPageError(400, 'Invalid request', 'project_org is not an organisation id.');
  return { query: text, organizationId, cursor };
}

/** What the error page says for an error not sent back to the client (fixed text: nothing of the request is repeated). */
const UNTRUSTED_ERROR_DETAIL: Readonly<Record<AuthorizeRedirectErrorCode, string>> = {
  invalid_request: 'The application’s request is incomplete or malformed (invalid_request).',
  unsupported_response_type: 'The application asked for a kind of answer Agent Gateway does not give (unsupported_response_type).',
  invalid_scope: 'The application asked for permissions that do not exist (invalid_scope).',
  invalid_target: 'The application asked for access to a service other than this one (invalid_target).',
  access_denied: 'The request was refused (access_denied).',
  server_error: 'Agent Gateway could not handle the request (server_error).',
};
