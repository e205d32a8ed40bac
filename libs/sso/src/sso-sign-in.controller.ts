import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { requestOrigin } from '@app/audit';
import { DomainError, HTTP_STATUS_OF_KIND, retryAfterOf } from '@app/common';
import { AppConfig } from '@app/config';
import { Public } from '@app/credentials';
import { readSessionCookie, safeNextPath, setSessionCookie, SSO_START_FORM, FormCsrf, sendPage, sendRedirect, singleParam } from '@app/web';
import { SessionTokenService, InvalidLoginError, TooManyLoginAttemptsError } from '@app/people';
import { UserDirectory } from '@app/tenancy';
import { SSO_CALLBACK_PATH } from '@app/identity';
import { LINK_COOKIE, PendingLink, PendingSwitch, SignInState, SsoCookies, STATE_COOKIE, SWITCH_COOKIE } from './sso-cookies';
import { SsoRateLimitService } from './sso-rate-limit.service';
import { SsoSignInService } from './sso-sign-in.service';
import { SsoNotSetUpError } from './sso-sign-in.parts';
import { SsoSignInError } from './sso.errors';
import { browserSession, failStepUp } from './sso-step-up.controller';
import { SsoStepUpService } from './sso-step-up.service';
import { linkPage, ssoErrorPage, startPage, switchPage } from './views/sso.view';

/** The link form's CSRF cookie (the form is shown before any session exists). */
const LINK_CSRF_COOKIE = 'ag_sso_link_csrf';

/**
 * Signing in through the organisation's identity provider (SPEC §9): `GET /auth/sso/start`
 * (from the sign-in page), `GET /auth/sso/callback` (the IdP's redirect URI; it also receives
 * the answers to step-ups, `SsoStepUpController`) and the page that links an existing password
 * account, `/auth/sso/link`. Each answer is a redirect or an HTML
 * page; a refusal is a page saying what happened, with the way back to the sign-in page.
 */
@Public()
@ApiExcludeController()
@Controller('auth/sso')
export class SsoSignInController {
  private readonly cookies: SsoCookies;
  private readonly csrf: FormCsrf;
  private readonly startCsrf: FormCsrf;
  private readonly switchCsrf: FormCsrf;

  constructor(
    private readonly config: AppConfig,
    private readonly signIn: SsoSignInService,
    private readonly limits: SsoRateLimitService,
    private readonly sessions: SessionTokenService,
    private readonly users: UserDirectory,
    private readonly stepUp: SsoStepUpService,
  ) {
    this.cookies = new SsoCookies(config);
    this.csrf = new FormCsrf(config, { cookie: LINK_CSRF_COOKIE, path: '/auth/sso/link' });
    this.startCsrf = new FormCsrf(config, SSO_START_FORM);
    this.switchCsrf = new FormCsrf(config, { cookie: 'ag_sso_switch_csrf', path: '/auth/sso/switch' });
  }

  /** The start page: a form that POSTs the start (no redirect, nothing counted: SPEC §10). */
  @Get('start')
  showStart(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): void {
    const next = safeNextPath(singleParam(query, 'next').value, this.config.baseUrl);
    const email = (singleParam(query, 'email').value?.trim() ?? '').slice(0, 320);
    sendPage(res, 200, startPage({ email, next, csrfToken: this.startCsrf.issue(req, res) }));
  }

  /**
   * Starting single sign-on: a same-site POST of the sign-in page's or the start page's form with
   * its CSRF token (a cross-site POST, or one without the token, is refused with 403).
   */
  @Post('start')
  async start(@Body() body: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const next = safeNextPath(singleParam(body, 'next').value, this.config.baseUrl);
    const email = singleParam(body, 'email').value?.trim() ?? '';
    if (!this.startCsrf.verify(req, singleParam(body, 'sso_csrf_token').value)) {
      const error = 'This sign-in was not started from this site, or its form expired. Continue again.';
      sendPage(res, 403, startPage({ email: email.slice(0, 320), next, csrfToken: this.startCsrf.issue(req, res), error }));
      return;
    }
    try {
      await this.limits.countStart(requestOrigin(req).ip ?? null);
      const started = await this.signIn.start(email, next);
      await this.cookies.set(res, STATE_COOKIE, started.state);
      sendRedirect(res, 303, started.authorizationUrl);
    } catch (error) {
      if (error instanceof SsoNotSetUpError) {
        const back = new URLSearchParams({ ...(email && email.length <= 320 ? { email } : {}), ...(next !== '/' ? { next } : {}), sso: 'not_set_up' });
        sendRedirect(res, 303, `/login?${back.toString()}`);
        return;
      }
      this.fail(res, error, next);
    }
  }

  /** The shared redirect URI, for IdPs connected before per-IdP redirect URIs (SPEC §10). */
  @Get('callback')
  legacyCallback(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.callback(query, `${this.config.baseUrl}${SSO_CALLBACK_PATH}`, req, res);
  }

  /** An organisation's own redirect URI. */
  @Get('callback/:callbackId')
  ownCallback(@Param('callbackId') callbackId: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.callback(query, `${this.config.baseUrl}${SSO_CALLBACK_PATH}/${encodeURIComponent(callbackId)}`, req, res);
  }

  private async callback(query: Record<string, unknown>, arrivedOn: string, req: Request, res: Response): Promise<void> {
    const state = await this.cookies.read<SignInState>(req, STATE_COOKIE);
    try {
      await this.limits.countCallback(requestOrigin(req).ip ?? null);
    } catch (error) {
      // Refused before anything reached the IdP: the browser keeps its state for a retry.
      return this.fail(res, error, state?.next);
    }
    // Single use: whatever happens next, this browser's state is spent.
    this.cookies.clear(res, STATE_COOKIE);
    const next = state?.next;
    try {
      const params = Object.fromEntries(
        (['state', 'code', 'error', 'iss'] as const).map((name) => {
          const param = singleParam(query, name);
          if (param.duplicate) throw new SsoSignInError('duplicate_parameter', `The parameter ${name} was sent more than once.`, 'invalid_input');
          return [name, param.value];
        }),
      );
      if (state?.stepUp) {
        sendRedirect(res, 303, await this.stepUp.finish(state, params, arrivedOn, await browserSession(req, this.config, this.sessions), requestOrigin(req)));
        return;
      }
      const outcome = await this.signIn.callback(state, params, arrivedOn, requestOrigin(req));
      if (outcome.kind === 'link_required') {
        await this.cookies.set(res, LINK_COOKIE, outcome.link);
        sendRedirect(res, 303, '/auth/sso/link');
        return;
      }
      await this.signInOrAsk(req, res, outcome.accessToken, outcome.next);
    } catch (error) {
      if (state?.stepUp) return failStepUp(res, error, state.next);
      this.fail(res, error, next);
    }
  }

  /**
   * Sets the new session, unless the browser holds a live session of another account: then the
   * person is asked first (`/auth/sso/switch`), so a sign-in another site pushed cannot silently
   * replace theirs (SPEC §10).
   */
  private async signInOrAsk(req: Request, res: Response, accessToken: string, next: string): Promise<void> {
    const current = readSessionCookie(req, this.config);
    const held = current ? await this.sessions.resolve(current) : null;
    const signedIn = await this.sessions.resolve(accessToken);
    if (held && signedIn && held.userId !== signedIn.userId) {
      await this.cookies.set<PendingSwitch>(res, SWITCH_COOKIE, { accessToken, next });
      sendRedirect(res, 303, '/auth/sso/switch');
      return;
    }
    setSessionCookie(res, accessToken, this.config);
    sendRedirect(res, 303, next);
  }

  @Get('switch')
  async showSwitch(@Req() req: Request, @Res() res: Response): Promise<void> {
    const view = await this.switchView(req);
    if (!view) return this.fail(res, switchExpired());
    sendPage(res, 200, switchPage({ ...view, csrfToken: this.switchCsrf.issue(req, res) }));
  }

  /** "Continue as …" sets the new session; "Stay signed in as …" ends it and keeps the browser's. */
  @Post('switch')
  async submitSwitch(@Body() body: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const pending = await this.cookies.read<PendingSwitch>(req, SWITCH_COOKIE);
    const view = await this.switchView(req);
    if (!pending || !view) return this.fail(res, switchExpired());
    if (!this.switchCsrf.verify(req, singleParam(body, 'csrf_token').value)) {
      sendPage(res, 403, switchPage({ ...view, csrfToken: this.switchCsrf.issue(req, res) }));
      return;
    }
    this.cookies.clear(res, SWITCH_COOKIE);
    this.switchCsrf.clear(res);
    if (singleParam(body, 'choice').value === 'switch') {
      setSessionCookie(res, pending.accessToken, this.config);
      sendRedirect(res, 303, pending.next);
      return;
    }
    const unwanted = await this.sessions.resolve(pending.accessToken);
    if (unwanted) await this.sessions.end(unwanted);
    sendRedirect(res, 303, '/');
  }

  private async switchView(req: Request): Promise<{ currentEmail: string; newEmail: string } | null> {
    const pending = await this.cookies.read<PendingSwitch>(req, SWITCH_COOKIE);
    const current = readSessionCookie(req, this.config);
    const [held, signedIn] = await Promise.all([current ? this.sessions.resolve(current) : null, pending ? this.sessions.resolve(pending.accessToken) : null]);
    if (!held || !signedIn) return null;
    const [a, b] = await Promise.all([this.users.findById(held.userId), this.users.findById(signedIn.userId)]);
    return a && b ? { currentEmail: a.email, newEmail: b.email } : null;
  }

  @Get('link')
  async showLink(@Req() req: Request, @Res() res: Response): Promise<void> {
    const link = await this.cookies.read<PendingLink>(req, LINK_COOKIE);
    if (!link) return this.fail(res, linkExpired());
    try {
      sendPage(res, 200, linkPage({ ...(await this.signIn.linkView(link)), csrfToken: this.csrf.issue(req, res) }));
    } catch (error) {
      this.fail(res, error, link.next);
    }
  }

  @Post('link')
  async submitLink(@Body() body: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const link = await this.cookies.read<PendingLink>(req, LINK_COOKIE);
    if (!link) return this.fail(res, linkExpired());
    const accepted = this.csrf.verify(req, singleParam(body, 'csrf_token').value);
    let view: Parameters<typeof linkPage>[0];
    try {
      view = { ...(await this.signIn.linkView(link)), csrfToken: this.csrf.issue(req, res) };
    } catch (error) {
      return this.fail(res, error, link.next);
    }
    if (!accepted) {
      sendPage(res, 403, linkPage({ ...view, error: 'The form expired. Please enter your password again.' }));
      return;
    }
    const password = singleParam(body, 'password').value ?? '';
    const confirmed = singleParam(body, 'confirm').value === 'yes';
    try {
      if (!password || password.length > 1024) throw new InvalidLoginError();
      const { accessToken, next } = await this.signIn.completeLink(link, { password, confirmed }, requestOrigin(req));
      this.cookies.clear(res, LINK_COOKIE);
      this.csrf.clear(res);
      setSessionCookie(res, accessToken, this.config);
      sendRedirect(res, 303, next);
    } catch (error) {
      if (error instanceof TooManyLoginAttemptsError) {
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
        sendPage(res, 429, linkPage({ ...view, error: error.pageMessage }));
      } else if (error instanceof InvalidLoginError) {
        sendPage(res, 401, linkPage({ ...view, error: 'Wrong password.' }));
      } else if (error instanceof SsoSignInError && error.code === 'link_not_confirmed') {
        sendPage(res, 400, linkPage({ ...view, error: error.message }));
      } else {
        this.fail(res, error, link.next);
      }
    }
  }

  /** A refusal as a page with its kind's status; anything that is not a domain error goes to the global filter. */
  private fail(res: Response, error: unknown, next?: string): void {
    if (!(error instanceof DomainError)) throw error;
    const retryAfter = retryAfterOf(error);
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    sendPage(res, HTTP_STATUS_OF_KIND[error.kind], ssoErrorPage(error.message, next));
  }
}

function switchExpired(): SsoSignInError {
  return new SsoSignInError('switch_expired', 'There is no single sign-on waiting in this browser, or it took longer than 10 minutes. Start again from the sign-in page.', 'invalid_input');
}

function linkExpired(): SsoSignInError {
  return new SsoSignInError('link_expired', 'There is no account waiting to be linked in this browser, or it took longer than 10 minutes. Start again from the sign-in page.', 'invalid_input');
}
