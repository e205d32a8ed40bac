import { Body, Controller, Get, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { Public, safeNextPath, setSessionCookie } from '@app/credentials';
import { FormCsrf, PageErrorFilter, sendPage, sendRedirect, singleParam } from '@app/web';
import { InvalidLoginError, TooManyLoginAttemptsError } from './auth.errors';
import { AuthService } from './auth.service';
import { loginPage } from './views/login.view';

/** The sign-in form's CSRF cookie, against login CSRF (a page elsewhere signing the browser in as someone else). */
const LOGIN_CSRF_COOKIE = 'ag_login_csrf';

/**
 * The HTML sign-in page of the OAuth flow: email and password, then back to `next` (a path on
 * this service only, so the page is no open redirect) with the session cookie set.
 */
@Public()
@ApiExcludeController()
@UseFilters(PageErrorFilter)
@Controller('login')
export class LoginPageController {
  private readonly csrf: FormCsrf;

  constructor(
    private readonly config: AppConfig,
    private readonly auth: AuthService,
  ) {
    this.csrf = new FormCsrf(config, { cookie: LOGIN_CSRF_COOKIE, path: '/login' });
  }

  @Get()
  show(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): void {
    const next = safeNextPath(singleParam(query, 'next').value, this.config.baseUrl);
    sendPage(res, 200, loginPage({ next, csrfToken: this.csrf.issue(req, res), signupHref: this.signupHref(next) }));
  }

  @Post()
  async submit(@Body() body: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const next = safeNextPath(singleParam(body, 'next').value, this.config.baseUrl);
    const email = singleParam(body, 'email').value ?? '';
    const password = singleParam(body, 'password').value ?? '';
    const accepted = this.csrf.verify(req, singleParam(body, 'csrf_token').value);
    const view = { next, email, csrfToken: this.csrf.issue(req, res), signupHref: this.signupHref(next) };
    if (!accepted) {
      sendPage(res, 403, loginPage({ ...view, error: 'The sign-in form expired. Please sign in again.' }));
      return;
    }
    let accessToken: string;
    try {
      if (!email || !password || email.length > 320 || password.length > 1024) throw new InvalidLoginError();
      ({ accessToken } = await this.auth.login(email, password, req.ip ?? null, req.get('user-agent') ?? null));
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
