import { Body, Controller, Get, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { Public } from '@app/credentials';
import { safeNextPath, setSessionCookie, SSO_START_FORM, FormCsrf, PageErrorFilter, sendPage, sendRedirect, singleParam } from '@app/web';
import { SsoRouting } from '@app/identity';
import { InvalidLoginError, TooManyLoginAttemptsError, SignInService } from '@app/people';
import { loginPage } from './views/login.view';

/** The sign-in form's CSRF cookie, against login CSRF (a page elsewhere signing the browser in as someone else). */
const LOGIN_CSRF_COOKIE = 'ag_login_csrf';

/** What `/auth/sso/start` sends back to this page (`sso=`), in words; anything else shows nothing. */
const SSO_NOTICES: Record<string, string> = {
  not_set_up: 'This email address is not set up for single sign-on. Sign in with your password.',
};

/**
 * The HTML sign-in page of the OAuth flow: email and password, then back to `next` (a path on
 * this service only, so the page is no open redirect) with the session cookie set. An email whose
 * domain an organisation claimed (verified) for single sign-on is offered "Continue with single
 * sign-on" (`/auth/sso/start`, keeping `next`); the password form stays for every other email.
 */
@Public()
@ApiExcludeController()
@UseFilters(PageErrorFilter)
@Controller('login')
export class LoginPageController {
  private readonly csrf: FormCsrf;
  private readonly ssoCsrf: FormCsrf;

  constructor(
    private readonly config: AppConfig,
    private readonly signIn: SignInService,
    private readonly sso: SsoRouting,
  ) {
    this.csrf = new FormCsrf(config, { cookie: LOGIN_CSRF_COOKIE, path: '/login' });
    this.ssoCsrf = new FormCsrf(config, SSO_START_FORM);
  }

  @Get()
  async show(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const next = safeNextPath(singleParam(query, 'next').value, this.config.baseUrl);
    const email = emailParam(singleParam(query, 'email').value);
    const notice = SSO_NOTICES[singleParam(query, 'sso').value ?? ''];
    sendPage(
      res,
      200,
      loginPage({
        next,
        email,
        notice,
        ssoHref: await this.ssoHref(email, next),
        csrfToken: this.csrf.issue(req, res),
        ssoCsrfToken: this.ssoCsrf.issue(req, res),
        signupHref: this.signupHref(next),
      }),
    );
  }

  @Post()
  async submit(@Body() body: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const next = safeNextPath(singleParam(body, 'next').value, this.config.baseUrl);
    const email = singleParam(body, 'email').value ?? '';
    const password = singleParam(body, 'password').value ?? '';
    const accepted = this.csrf.verify(req, singleParam(body, 'csrf_token').value);
    const ssoHref = await this.ssoHref(emailParam(email), next);
    const view = { next, email, ssoHref, csrfToken: this.csrf.issue(req, res), ssoCsrfToken: this.ssoCsrf.issue(req, res), signupHref: this.signupHref(next) };
    if (!accepted) {
      sendPage(res, 403, loginPage({ ...view, error: 'The sign-in form expired. Please sign in again.' }));
      return;
    }
    if (singleParam(body, 'sso').value === 'continue') {
      if (ssoHref) {
        sendRedirect(res, 303, ssoHref);
        return;
      }
      const error = email ? SSO_NOTICES.not_set_up! : 'Enter your email address to continue with single sign-on.';
      sendPage(res, 400, loginPage({ ...view, error }));
      return;
    }
    let accessToken: string;
    try {
      if (!email || !password || email.length > 320 || password.length > 1024) throw new InvalidLoginError();
      ({ accessToken } = await this.signIn.login(email, password, req.ip ?? null, req.get('user-agent') ?? null));
    } catch (error) {
      if (error instanceof TooManyLoginAttemptsError) {
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
        sendPage(res, 429, loginPage({ ...view, error: error.pageMessage }));
        return;
      }
      if (!(error instanceof InvalidLoginError)) throw error;
      sendPage(res, 401, loginPage({ ...view, error: 'Wrong email or password.' }));
      return;
    }
    setSessionCookie(res, accessToken, this.config);
    this.csrf.clear(res);
    sendRedirect(res, 303, next);
  }

  /** `/auth/sso/start` for the email, keeping `next`, when its domain routes to single sign-on. */
  private async ssoHref(email: string | undefined, next: string): Promise<string | undefined> {
    if (!email || !(await this.sso.routeFor(email))) return undefined;
    const query = new URLSearchParams({ email, ...(next !== '/' ? { next } : {}) });
    return `/auth/sso/start?${query.toString()}`;
  }

  private signupHref(next: string): string | undefined {
    // Signing in to accept an invitation: "Create one" signs up from that invitation instead (open with sign-up off too).
    const invitation = invitationOf(next, this.config.baseUrl);
    if (invitation) return `/signup?invitation=${encodeURIComponent(invitation)}`;
    return this.config.signupEnabled ? `/signup?next=${encodeURIComponent(next)}` : undefined;
  }
}

/** The invitation secret when `next` is the invitation page (`/invitation?token=…`). */
function invitationOf(next: string, baseUrl: string): string | undefined {
  const url = new URL(next, baseUrl);
  return url.pathname === '/invitation' ? (url.searchParams.get('token') ?? undefined) : undefined;
}

/** An email as typed, when it could be one (for the single sign-on offer); else undefined. */
function emailParam(value: string | undefined): string | undefined {
  const email = value?.trim();
  return email && email.length <= 320 && email.includes('@') ? email : undefined;
}
