import { Body, Controller, Get, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Request, Response } from 'express';
import { AuditOrigin, RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { Public } from '@app/credentials';
import { readSessionCookie, safeNextPath, setSessionCookie, FormCsrf, PageErrorFilter, sendPage, sendRedirect } from '@app/web';
import { hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';
import { SessionTokenService, EmailTakenError, SignupDto, SignupService, SsoRequiredForDomainError, TooManySignupsError } from '@app/people';
import { InvalidInvitationError, InvitationDirectory } from '@app/tenancy';
import { invitationAcceptPath, invitationInvalidPage, SignupField, signupDisabledPage, signupPage, SignupFormState } from './views/signup.view';

const FIELD_NAMES: SignupField[] = ['email', 'name', 'password', 'organizationName'];
export const SIGNUP_CSRF_COOKIE = 'ag_signup_csrf';
/** Where a new account lands when the signup link carried no `next`: the dashboard, which prompts for the first project. */
export const AFTER_SIGNUP_PATH = '/';

/**
 * The HTML sign-up page (for people who arrive through an AI client's login, or a browser):
 * creates the account and its organisation, sets the session cookie and returns to `next` (the
 * consent screen, from an AI client's sign-in), or else opens the dashboard.
 */
@Public()
@ApiExcludeController()
@UseFilters(PageErrorFilter)
@Controller('signup')
export class SignupPageController {
  private readonly csrf: FormCsrf;

  constructor(
    private readonly config: AppConfig,
    private readonly signups: SignupService,
    private readonly invitations: InvitationDirectory,
    private readonly sessions: SessionTokenService,
  ) {
    this.csrf = new FormCsrf(config, { cookie: SIGNUP_CSRF_COOKIE, path: '/signup' });
  }

  @Get()
  async show(@Req() req: Request, @Res() res: Response, @Query('next') next: unknown, @Query('invitation') invitation: unknown): Promise<void> {
    if (invitation !== undefined) {
      const open = await this.openInvitation(invitation);
      if (!open) return sendPage(res, 404, invitationInvalidPage());
      // Someone signed in accepts it as that account, on the dashboard's invitation page.
      if (await this.signedIn(req)) return sendRedirect(res, 303, invitationAcceptPath(open.token));
      const blank = this.blank(req, res, next);
      return sendPage(res, 200, signupPage({ ...blank, values: { email: open.email }, invitation: open }));
    }
    if (!this.config.signupEnabled) return sendPage(res, 403, signupDisabledPage());
    sendPage(res, 200, signupPage(this.blank(req, res, next)));
  }

  @Post()
  async submit(
    @Req() req: Request,
    @Res() res: Response,
    @Body() body: Record<string, unknown>,
    @AuditOrigin() origin: RequestOrigin,
  ): Promise<void> {
    const invitation = body.invitation !== undefined ? await this.openInvitation(body.invitation) : undefined;
    if (invitation === null) return sendPage(res, 404, invitationInvalidPage());
    if (!this.config.signupEnabled && !invitation) return sendPage(res, 403, signupDisabledPage());
    const fields = Object.fromEntries(FIELD_NAMES.map((name) => [name, typeof body[name] === 'string' ? body[name] : ''])) as Record<
      SignupField,
      string
    >;
    const next = typeof body.next === 'string' && body.next !== '' ? safeNextPath(body.next, this.config.baseUrl, '') || undefined : undefined;
    const state: SignupFormState = {
      csrf: this.csrf.issue(req, res),
      next,
      values: { email: fields.email, name: fields.name, organizationName: fields.organizationName },
      errors: {},
      invitation,
    };
    if (!this.csrf.verify(req, body.csrf)) {
      state.formError = 'This form has expired or did not come from this site. Please check the details and submit it again.';
      return sendPage(res, 403, signupPage(state));
    }
    const dto = plainToInstance(SignupDto, invitation ? { ...fields, organizationName: undefined, invitation: invitation.token } : fields);
    for (const error of await validate(dto)) {
      const field = error.property as SignupField;
      state.errors[field] = friendly(field, Object.values(error.constraints ?? {})[0] ?? 'is invalid');
    }
    if (Object.keys(state.errors).length) return sendPage(res, 400, signupPage(state));
    try {
      const { session } = await this.signups.signUp(dto, origin);
      setSessionCookie(res, session.accessToken, this.config);
      this.csrf.clear(res);
      sendRedirect(res, 303, safeNextPath(next, this.config.baseUrl, AFTER_SIGNUP_PATH));
    } catch (error) {
      if (error instanceof TooManySignupsError) {
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
        state.formError = error.pageMessage;
        return sendPage(res, 429, signupPage(state));
      }
      if (error instanceof InvalidInvitationError) return sendPage(res, 404, invitationInvalidPage());
      if (error instanceof SsoRequiredForDomainError) {
        state.errors.email = `Addresses of ${error.domain} sign in with their organisation's single sign-on.`;
        state.ssoStartHref = `/auth/sso/start?${new URLSearchParams({ email: fields.email, ...(next ? { next } : {}) }).toString()}`;
        return sendPage(res, 409, signupPage(state));
      }
      if (!(error instanceof EmailTakenError)) throw error;
      state.errors.email = 'An account with this email already exists. Sign in instead.';
      sendPage(res, 409, signupPage(state));
    }
  }

  /** The former landing page after sign-up: the dashboard took its place (old links and bookmarks still work). */
  @Get('welcome')
  welcome(@Res() res: Response): void {
    sendRedirect(res, 303, AFTER_SIGNUP_PATH);
  }

  /** The open invitation behind a link's secret (what the page shows), or null. */
  private async openInvitation(secret: unknown): Promise<SignupFormState['invitation'] | null> {
    if (typeof secret !== 'string' || !isWellFormedToken(secret, TOKEN_PREFIXES.invitation)) return null;
    const open = await this.invitations.findOpenByHash(hashToken(secret));
    return open ? { token: secret, organizationName: open.organizationName, role: open.role, email: open.email } : null;
  }

  private async signedIn(req: Request): Promise<boolean> {
    const jwt = readSessionCookie(req, this.config);
    return jwt !== undefined && (await this.sessions.resolve(jwt)) !== null;
  }

  private blank(req: Request, res: Response, next: unknown): SignupFormState {
    const safe = typeof next === 'string' && next !== '' ? safeNextPath(next, this.config.baseUrl, '') || undefined : undefined;
    return { csrf: this.csrf.issue(req, res), next: safe, values: {}, errors: {} };
  }
}

const LABELS: Record<SignupField, string> = {
  email: 'Email',
  name: 'Your name',
  password: 'Password',
  organizationName: 'Organisation name',
};

/** class-validator's message, phrased for a person ("password must be longer…" → "Password must be …"). */
function friendly(field: SignupField, message: string): string {
  if (field === 'password' && /longer|shorter/.test(message)) return 'Password must be between 12 and 1024 characters';
  if (/should not be empty|must be a string/.test(message)) return `Enter ${field === 'name' ? 'your name' : LABELS[field].toLowerCase()}`;
  if (field === 'email') return 'Enter an email address like name@example.com';
  return `${LABELS[field]} ${message.replace(new RegExp(`^${field}\\s*`), '')}`;
}
