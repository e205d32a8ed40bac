import { Body, Controller, Get, Header, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuditOrigin, RequestOrigin } from '@app/audit';
import { ApiErrors } from '@app/common';
import { AppConfig } from '@app/config';
import { CurrentPrincipal, Public, RestAuth } from '@app/credentials';
import { clearSignInCookies, readSessionCookie, sendRedirect } from '@app/web';
import { PasswordResetService, SessionPrincipal, SessionTokenService, SignupAndResetLimits } from '@app/people';
import { PasswordResetDto } from './dto/password-reset.dto';
import { SessionListDto } from './dto/session-token.dto';

/**
 * Listing one's sessions, and ending sessions: sign-out (this session, on the server), sign-out everywhere (every session
 * of the person issued before now) and the use of a password-reset link (which ends them all).
 */
@ApiTags('auth')
@Controller()
export class SessionsController {
  constructor(
    private readonly config: AppConfig,
    private readonly sessions: SessionTokenService,
    private readonly resets: PasswordResetService,
    private readonly limits: SignupAndResetLimits,
  ) {}

  @Get('api/auth/sessions')
  @RestAuth({ sessionOnly: true })
  @Header('Cache-Control', 'no-store')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Your sessions that still work, newest first, at most 50; `current` marks this one (session only)' })
  @ApiOkResponse({ type: SessionListDto })
  @ApiErrors(401, 403)
  async list(@CurrentPrincipal() principal: SessionPrincipal): Promise<SessionListDto> {
    const sessions = await this.sessions.list(principal.userId);
    return {
      items: sessions.map((s) => ({
        id: s.id,
        createdAt: s.createdAt.toISOString(),
        expiresAt: s.expiresAt.toISOString(),
        userAgent: s.userAgent,
        ip: s.ip,
        current: s.id === principal.sessionId,
      })),
    };
  }

  @Post('api/auth/logout')
  @RestAuth({ sessionOnly: true })
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Sign out: this session is refused from now on, on every instance (session only)' })
  @ApiNoContentResponse()
  @ApiErrors(401, 403)
  async logout(@CurrentPrincipal() principal: SessionPrincipal, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.sessions.end(principal);
    clearSignInCookies(res, this.config);
  }

  @Post('api/auth/logout-all')
  @RestAuth({ sessionOnly: true })
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Sign out everywhere: every session of this person issued until now is refused (session only)' })
  @ApiNoContentResponse()
  @ApiErrors(401, 403)
  async logoutAll(@CurrentPrincipal() principal: SessionPrincipal, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.sessions.endAll(principal.userId);
    clearSignInCookies(res, this.config);
  }

  @Post('api/auth/password-reset')
  @Public()
  @HttpCode(204)
  @ApiOperation({
    summary: "Use a one-time reset link: sets the new password and ends every session of the link's person",
  })
  @ApiNoContentResponse()
  @ApiErrors(400, 404, 429)
  async resetPassword(@Body() body: PasswordResetDto, @AuditOrigin() origin: RequestOrigin): Promise<void> {
    await this.limits.countPasswordReset(origin.ip ?? null);
    await this.resets.use(body.token, body.password, origin);
  }

  /** The pages' sign-out: ends the cookie's session on the server, clears the cookie, back to sign-in. */
  @Post('logout')
  @Public()
  @ApiExcludeEndpoint()
  async logoutPage(@Req() req: Request, @Res() res: Response): Promise<void> {
    const jwt = readSessionCookie(req, this.config);
    const session = jwt ? await this.sessions.resolve(jwt) : null;
    if (session) await this.sessions.end(session);
    clearSignInCookies(res, this.config);
    sendRedirect(res, 303, '/login');
  }
}
