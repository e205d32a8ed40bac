import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { PeopleModule } from '@app/people';
import { RateLimitModule } from '@app/rate-limit';
import { TenancyModule } from '@app/tenancy';
import { AccountsService } from './accounts.service';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { ReauthenticationService } from './reauthentication.service';
import { AuthRateLimitService } from './auth-rate-limit.service';
import { LoginPageController } from './login-page.controller';
import { ResetPasswordPageController } from './reset-password-page.controller';
import { SessionsController } from './sessions.controller';
import { SignupPageController } from './signup-page.controller';
import { SignupService } from './signup.service';

/** Sign-up (REST and HTML), password login, sign-out, password-reset links in use, and `GET /api/me`. */
@Module({
  imports: [IdentityModule, PeopleModule, RateLimitModule, TenancyModule],
  controllers: [AuthController, SessionsController, SignupPageController, LoginPageController, ResetPasswordPageController],
  providers: [AccountsService, AuthService, AuthRateLimitService, SignupService, ReauthenticationService],
  exports: [AccountsService, AuthService, ReauthenticationService],
})
export class AuthModule {}
