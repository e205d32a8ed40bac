import { Body, Controller, Get, Header, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditOrigin, RequestOrigin } from '@app/audit';
import { ApiErrorDto, ApiErrors } from '@app/common';
import { CurrentPrincipal, Public, RestAuth } from '@app/credentials';
import { SessionPrincipal, ChangePasswordDto, ReauthenticationService, SignInService, SignupDto, SignupService } from '@app/people';
import { LoginDto } from './dto/login.dto';
import { ReauthenticateDto } from './dto/reauthenticate.dto';
import { MeDto, SessionTokenDto, SignupResponseDto } from './dto/session-token.dto';

@ApiTags('auth')
@Controller('api')
export class AuthController {
  constructor(
    private readonly signups: SignupService,
    private readonly signIn: SignInService,
    private readonly reauthentication: ReauthenticationService,
  ) {}

  @Post('auth/reauthenticate')
  @RestAuth({ sessionOnly: true })
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({
    summary:
      'Sign in again with your password inside this session: changes that need a sign-in of the last 15 minutes (the policy) are then allowed for 15 minutes (session only; a single sign-on session signs in again through its identity provider)',
  })
  @ApiErrors(400, 401, 403, 429)
  async reauthenticate(
    @CurrentPrincipal() principal: SessionPrincipal,
    @Body() body: ReauthenticateDto,
    @AuditOrigin() origin: RequestOrigin,
  ): Promise<void> {
    await this.reauthentication.withPassword(principal, body.password, origin);
  }

  @Post('auth/signup')
  @Public()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary:
      'Create an account and a new organisation (you become its admin), or with `invitation` join the inviting organisation (also when sign-up is disabled); answers a session JWT',
  })
  @ApiCreatedResponse({ type: SignupResponseDto })
  @ApiForbiddenResponse({ description: 'Sign-up is disabled on this deployment (SIGNUP_ENABLED=false).', type: ApiErrorDto })
  @ApiErrors(400, 404, 409, 429)
  async signup(@Body() body: SignupDto, @AuditOrigin() origin: RequestOrigin): Promise<SignupResponseDto> {
    const { account, session } = await this.signups.signUp(body, origin);
    return { ...account, ...session };
  }

  @Post('auth/login')
  @Public()
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Exchange email and password for a session JWT' })
  @ApiOkResponse({ type: SessionTokenDto })
  @ApiErrors(400, 401, 429)
  async login(@Body() body: LoginDto, @AuditOrigin() origin: RequestOrigin): Promise<SessionTokenDto> {
    const { accessToken, tokenType, expiresIn } = await this.signIn.login(body.email, body.password, origin.ip ?? null, origin.userAgent ?? null);
    return { accessToken, tokenType, expiresIn };
  }

  @Post('auth/password')
  @RestAuth({ sessionOnly: true })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiBearerAuth()
  @ApiOperation({
    summary:
      'Change your own password (currentPassword required): every session issued before now ends, this one included; answers a fresh session JWT to use from now on (session only)',
  })
  @ApiOkResponse({ type: SessionTokenDto })
  @ApiErrors(400, 401, 403, 429)
  async changePassword(
    @CurrentPrincipal() principal: SessionPrincipal,
    @Body() body: ChangePasswordDto,
    @AuditOrigin() origin: RequestOrigin,
  ): Promise<SessionTokenDto> {
    const { accessToken, tokenType, expiresIn } = await this.signIn.changePassword(principal.userId, body, origin);
    return { accessToken, tokenType, expiresIn };
  }

  @Get('me')
  @RestAuth({ sessionOnly: true })
  @ApiBearerAuth()
  @ApiOperation({ summary: 'The signed-in person and their memberships, those whose organisation this session opens (single sign-on, docs/sso.md) (session only)' })
  @ApiOkResponse({ type: MeDto })
  @ApiErrors(401, 403)
  async me(@CurrentPrincipal() principal: SessionPrincipal): Promise<MeDto> {
    const { user, memberships } = await this.signIn.me(principal);
    return { user, memberships };
  }
}
