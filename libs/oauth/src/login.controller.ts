import { Body, Controller, Get, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '@app/config';
import { AuthService, InvalidLoginError, TooManyLoginAttemptsError } from '@app/auth';
import { Public, safeNextPath, setSessionCookie } from '@app/credentials';
import { OAuthPageErrorFilter } from './oauth-exception.filters';
import { singleParam } from './oauth-params';
import { sendPage, sendRedirect } from './views/html';
import { loginPage } from './views/login.view';

/** Double-submit cookie against login CSRF (a page elsewhere signing the browser in as someone else). */
const LOGIN_CSRF_COOKIE = 'ag_login_csrf';

/**
 * The HTML sign-in page of the OAuth flow: email and password, then back to `next` (a path on
 * this service only, so the page is no open redirect) with the session cookie set.
 */
@Public()
@ApiExcludeController()
@UseFilters(OAuthPageErrorFilter)
@Controller('login')
export class LoginController {
  constructor(
    private readonly config: AppConfig,
    private readonly auth: AuthService,
  ) {}

  @Get()
  show(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): void {
    const next = safeNextPath(singleParam(query, 'next').value);
    const csrfToken = this.loginCsrf(req, res);
    sendPage(res, 200, loginPage({ next, csrfToken, signupHref: this.signupHref(next) }));
  }

  @Post()
  async submit(@Body() body: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const next = safeNextPath(singleParam(body, 'next').value);
    const email = singleParam(body, 'email').value ?? '';
    const password = singleParam(body, 'password').value ?? '';
    const cookieToken = (req.cookies as Record<string, unknown> | undefined)?.[LOGIN_CSRF_COOKIE];
    const formToken = singleParam(body, 'csrf_token').value;
    if (typeof cookieToken !== 'string' || !formToken || !sameToken(cookieToken, formToken)) {
      const csrfToken = this.loginCsrf(req, res, true);
      sendPage(res, 403, loginPage({ next, csrfToken, email, error: 'The sign-in form expired. Please sign in again.', signupHref: this.signupHref(next) }));
      return;
    }
    let accessToken: string;
    try {
      if (!email || !password || email.length > 320 || password.length > 1024) throw new InvalidLoginError();
      ({ accessToken } = await this.auth.login(email, password, req.ip ?? null));
    } catch (error) {
      if (error instanceof TooManyLoginAttemptsError) {
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
        sendPage(res, 429, loginPage({ next, csrfToken: cookieToken, email, error: error.pageMessage, signupHref: this.signupHref(next) }));
        return;
      }
      if (!(error instanceof InvalidLoginError)) throw error;
      sendPage(res, 401, loginPage({ next, csrfToken: cookieToken, email, error: 'Wrong email or password.', signupHref: this.signupHref(next) }));
      return;
    }
    setSessionCookie(res, accessToken, this.config);
    res.clearCookie(LOGIN_CSRF_COOKIE, { path: '/login' });
    sendRedirect(res, 303, next);
  }

  private signupHref(next: string): string | undefined {
    return this.config.signupEnabled ? `/signup?next=${encodeURIComponent(next)}` : undefined;
  }

  private loginCsrf(req: Request, res: Response, renew = false): string {
    const existing = (req.cookies as Record<string, unknown> | undefined)?.[LOGIN_CSRF_COOKIE];
    if (!renew && typeof existing === 'string' && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = randomBytes(32).toString('base64url');
    res.cookie(LOGIN_CSRF_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.config.baseUrl.startsWith('https://'),
      path: '/login',
    });
    return token;
  }
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
