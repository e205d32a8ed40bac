import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { RateLimitModule } from '@app/rate-limit';
import { TenancyModule } from '@app/tenancy';
import { AccountsService } from './accounts.service';
import { InvitationsService } from './invitations.service';
import { LoginAttemptLimits } from './login-attempt-limits.service';
import { MembersService } from './members.service';
import { PasswordCheck } from './password-check.service';
import { ReauthenticationService } from './reauthentication.service';
import { SignInService } from './sign-in.service';
import { SignupAndResetLimits } from './signup-and-reset-limits.service';
import { SignupService } from './signup.service';
import { SessionsModule } from './sessions.module';

/** Every service of the library, each provided once here and exported to the adapters. */
const SERVICES = [
  AccountsService,
  SignupService,
  SignInService,
  ReauthenticationService,
  SignupAndResetLimits,
  MembersService,
  InvitationsService,
  PasswordCheck,
  LoginAttemptLimits,
];

/**
 * People, their accounts and their place in organisations, without HTTP (docs/architecture.md):
 * accounts (`AccountsService`: creation with a first organisation or from an invitation, the
 * operator's `release-email`) and sign-up (`SignupService`, under `SignupAndResetLimits`),
 * password sign-in, password change and the session's view of itself (`SignInService`), signing
 * in again inside a session (`ReauthenticationService`), memberships and their changes (the
 * last-admin rule, removal and offboarding), invitations and their acceptance, and the password
 * check of every sign-in by password under the failed-attempt limits; with it, its sessions
 * (`SessionsModule`). `auth`, `organizations`,
 * `sso`, `scim`, the dashboard and the command line are adapters over it.
 */
@Module({
  imports: [TenancyModule, IdentityModule, RateLimitModule, SessionsModule],
  providers: SERVICES,
  exports: [SessionsModule, ...SERVICES],
})
export class PeopleModule {}
