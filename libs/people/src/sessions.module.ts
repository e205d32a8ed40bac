import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { TenancyModule } from '@app/tenancy';
import { PasswordResetService } from './password-reset.service';
import { RecentSignIn } from './recent-sign-in';
import { SessionReach } from './session-reach.service';
import { SessionTokenService } from './session-token.service';

/**
 * A person's sessions, without HTTP (docs/architecture.md): issuing, checking and revoking them
 * (`SessionTokenService`), what a session opens (`SessionReach`: the organisation's sign-in rule
 * and the membership's start), the recent sign-in some changes need (`RecentSignIn`) and password
 * reset links. The access check (`credentials`) imports it and offers it to every module.
 */
@Module({
  imports: [TenancyModule, IdentityModule],
  providers: [SessionTokenService, SessionReach, RecentSignIn, PasswordResetService],
  exports: [SessionTokenService, SessionReach, RecentSignIn, PasswordResetService],
})
export class SessionsModule {}
