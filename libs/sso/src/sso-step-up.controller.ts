import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { requestOrigin } from '@app/audit';
import { DomainError, HTTP_STATUS_OF_KIND, isUuid, retryAfterOf } from '@app/common';
import { AppConfig } from '@app/config';
import { Public } from '@app/credentials';
import { readSessionCookie, safeNextPath, sendPage, sendRedirect, singleParam } from '@app/web';
import { SessionTokenService, SSO_STEP_UP_PATH, type SessionPrincipal } from '@app/people';
import { SsoCookies, STATE_COOKIE } from './sso-cookies';
import { SsoRateLimitService } from './sso-rate-limit.service';
import { SsoStepUpService } from './sso-step-up.service';
import { loginHref, stepUpErrorPage } from './views/sso.view';

/**
 * `GET /auth/sso/step-up?organization=…&return_to=…` (SPEC §10): a single sign-on session signs
 * in again through its identity provider (`max_age=0`) to confirm a change that needs a sign-in
 * of the last 15 minutes. The IdP answers on its registered redirect URI (`/auth/sso/callback…`),
 * whose handler hands a step-up's state to `SsoStepUpService.finish`. `return_to` is a path on
 * this service (anything else goes back to `/`).
 */
@Public()
@ApiExcludeController()
@Controller(SSO_STEP_UP_PATH.slice(1))
export class SsoStepUpController {
  private readonly cookies: SsoCookies;

  constructor(
    private readonly config: AppConfig,
    private readonly stepUp: SsoStepUpService,
    private readonly limits: SsoRateLimitService,
    private readonly sessions: SessionTokenService,
  ) {
    this.cookies = new SsoCookies(config);
  }

  @Get()
  async start(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const returnTo = safeNextPath(singleParam(query, 'return_to').value, this.config.baseUrl);
    const organization = singleParam(query, 'organization').value;
    const session = await browserSession(req, this.config, this.sessions);
    if (!session) return sendRedirect(res, 303, loginHref(returnTo));
    try {
      await this.limits.countStart(requestOrigin(req).ip ?? null);
      const started = await this.stepUp.start(session, isUuid(organization) ? organization : null, returnTo);
      await this.cookies.set(res, STATE_COOKIE, started.state);
      sendRedirect(res, 303, started.authorizationUrl);
    } catch (error) {
      failStepUp(res, error, returnTo);
    }
  }
}

/** The live session the browser's cookie holds, or null. */
export async function browserSession(req: Request, config: Pick<AppConfig, 'baseUrl'>, sessions: SessionTokenService): Promise<SessionPrincipal | null> {
  const token = readSessionCookie(req, config);
  return token ? sessions.resolve(token) : null;
}

/** A refused step-up as a page with its kind's status, naming the refusal; anything else goes to the global filter. */
export function failStepUp(res: Response, error: unknown, returnTo: string): void {
  if (!(error instanceof DomainError)) throw error;
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  sendPage(res, HTTP_STATUS_OF_KIND[error.kind], stepUpErrorPage(error.message, error.code, returnTo));
}
