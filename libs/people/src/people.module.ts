import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { RateLimitModule } from '@app/rate-limit';
import { TenancyModule } from '@app/tenancy';
import { InvitationsService } from './invitations.service';
import { LoginAttemptLimits } from './login-attempt-limits.service';
import { MembersService } from './members.service';
import { PasswordCheck } from './password-check.service';
import { SessionsModule } from './sessions.module';

/**
 * People and their place in organisations, without HTTP (docs/architecture.md): memberships and
 * their changes (the last-admin rule, removal and offboarding), invitations and their acceptance,
 * and the password check of every sign-in by password under the failed-attempt limits.
 * `organizations`, `sso`, `scim` and the dashboard are adapters over it.
 */
@Module({
  imports: [TenancyModule, IdentityModule, RateLimitModule, SessionsModule],
  providers: [MembersService, InvitationsService, PasswordCheck, LoginAttemptLimits],
  exports: [SessionsModule, MembersService, InvitationsService, PasswordCheck, LoginAttemptLimits],
})
export class PeopleModule {}
