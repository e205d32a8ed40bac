import { Body, Controller, Get, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuditOrigin, RequestOrigin } from '@app/audit';
import { Public } from '@app/credentials';
import { InvalidResetLinkError, PasswordResetService, isCommonlyBreachedPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, SignupAndResetLimits, TooManyResetAttemptsError } from '@app/people';
import { sendPage } from '@app/web';
import { passwordChangedPage, resetLinkInvalidPage, resetPasswordPage } from './views/reset-password.view';

/**
 * The page a reset link opens: the person sets a new password; every session of theirs ends.
 * No CSRF token: the form is worthless without the link's secret, which only its holder has.
 */
@Public()
@ApiExcludeController()
@Controller('reset-password')
export class ResetPasswordPageController {
  constructor(
    private readonly resets: PasswordResetService,
    private readonly limits: SignupAndResetLimits,
  ) {}

  @Get()
  async show(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    if (typeof token !== 'string' || !(await this.resets.isUsable(token))) return sendPage(res, 404, resetLinkInvalidPage());
    sendPage(res, 200, resetPasswordPage(token));
  }

  @Post()
  async submit(@Body() body: Record<string, unknown>, @Res() res: Response, @AuditOrigin() origin: RequestOrigin): Promise<void> {
    const token = typeof body.token === 'string' ? body.token : '';
    const password = typeof body.password === 'string' ? body.password : '';
    try {
      await this.limits.countPasswordReset(origin.ip ?? null);
    } catch (error) {
      if (!(error instanceof TooManyResetAttemptsError)) throw error;
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
      return sendPage(res, 429, resetPasswordPage(token, error.pageMessage));
    }
    const problem =
      password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH
        ? `The password must be between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters.`
        : isCommonlyBreachedPassword(password)
          ? 'This password is one of the most commonly breached ones and would be guessed quickly. Choose another (a few unrelated words work well).'
          : undefined;
    if (problem) {
      if (!(await this.resets.isUsable(token))) return sendPage(res, 404, resetLinkInvalidPage());
      return sendPage(res, 400, resetPasswordPage(token, problem));
    }
    try {
      await this.resets.use(token, password, origin);
    } catch (error) {
      if (error instanceof InvalidResetLinkError) return sendPage(res, 404, resetLinkInvalidPage());
      throw error;
    }
    sendPage(res, 200, passwordChangedPage());
  }
}
