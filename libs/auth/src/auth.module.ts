import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { PeopleModule } from '@app/people';
import { TenancyModule } from '@app/tenancy';
import { AuthController } from './auth.controller';
import { LoginPageController } from './login-page.controller';
import { ResetPasswordPageController } from './reset-password-page.controller';
import { SessionsController } from './sessions.controller';
import { SignupPageController } from './signup-page.controller';

/**
 * Sign-up (REST and HTML), password login, sign-out, password-reset links in use, and `GET /api/me`:
 * the HTTP routes and pages over `people`'s `SignupService`, `SignInService` and `ReauthenticationService`.
 */
@Module({
  imports: [IdentityModule, PeopleModule, TenancyModule],
  controllers: [AuthController, SessionsController, SignupPageController, LoginPageController, ResetPasswordPageController],
})
export class AuthModule {}
