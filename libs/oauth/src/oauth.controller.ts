import { Body, Controller, Headers, HttpCode, Post, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuditOrigin, RequestOrigin } from '@app/audit';
import { Public } from '@app/credentials';
import { ClientRegistrationService } from './client-registration.service';
import { OAuthErrorFilter } from './oauth-exception.filters';
import { OAuthTokensService } from './oauth-tokens.service';
import { tokenRequester, TokenRateLimit } from './token-rate-limit.service';
import { TokenRevocationService } from './token-revocation.service';

/**
 * The cookie-less OAuth endpoints: registration (RFC 7591), token (RFC 6749 §3.2) and revocation
 * (RFC 7009). Bodies are form-encoded or JSON; errors are RFC JSON; nothing is cached.
 */
@Public()
@ApiExcludeController()
@UseFilters(OAuthErrorFilter)
@Controller('api/agent/oauth')
export class OAuthController {
  constructor(
    private readonly registrations: ClientRegistrationService,
    private readonly tokens: OAuthTokensService,
    private readonly revocations: TokenRevocationService,
    private readonly tokenLimits: TokenRateLimit,
  ) {}

  @Post('register')
  async register(@Body() body: unknown, @AuditOrigin() origin: RequestOrigin, @Res() res: Response): Promise<void> {
    const client = await this.registrations.register(body, origin);
    res.status(201).setHeader('Cache-Control', 'no-store').setHeader('Pragma', 'no-cache').json(client);
  }

  @Post('token')
  async token(
    @Body() body: Record<string, unknown> | undefined,
    @Headers('authorization') authorization: string | undefined,
    @AuditOrigin() origin: RequestOrigin,
    @Res() res: Response,
  ): Promise<void> {
    const form = body ?? {};
    const tokens = await this.tokenLimits.around(tokenRequester(form, authorization, origin.ip ?? null), () => this.tokens.token(form, authorization, origin));
    res.status(200).setHeader('Cache-Control', 'no-store').setHeader('Pragma', 'no-cache').json(tokens);
  }

  @Post('revoke')
  @HttpCode(200)
  async revoke(
    @Body() body: Record<string, unknown> | undefined,
    @Headers('authorization') authorization: string | undefined,
    @AuditOrigin() origin: RequestOrigin,
    @Res() res: Response,
  ): Promise<void> {
    const form = body ?? {};
    await this.tokenLimits.aroundRevocation(tokenRequester(form, authorization, origin.ip ?? null), () => this.revocations.revoke(form, authorization, origin));
    res.status(200).setHeader('Cache-Control', 'no-store').setHeader('Pragma', 'no-cache').end();
  }
}
