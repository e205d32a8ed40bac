import { SsoCallbackChecks } from './sso-callback-checks';
import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { PeopleModule } from '@app/people';
import { RateLimitModule } from '@app/rate-limit';
import { TenancyModule } from '@app/tenancy';
import { SsoRelyingParty } from './sso-relying-party';
import { IdentityProviderController } from './identity-provider.controller';
import { SsoSignInController } from './sso-sign-in.controller';
import { SsoRateLimitService } from './sso-rate-limit.service';
import { SsoSignInService } from './sso-sign-in.service';
import { SsoAuthorization } from './sso-authorization';
import { SsoStepUpController } from './sso-step-up.controller';
import { SsoStepUpService } from './sso-step-up.service';

/**
 * Single sign-on over HTTP (`docs/sso.md`): the identity-provider settings routes, and signing in
 * through an organisation's OpenID Connect identity provider (`/auth/sso/start`,
 * `/auth/sso/callback`, linking an existing account at `/auth/sso/link`), and the step-up of a
 * single sign-on session (`/auth/sso/step-up`).
 */
@Module({
  imports: [IdentityModule, PeopleModule, RateLimitModule, TenancyModule],
  controllers: [IdentityProviderController, SsoSignInController, SsoStepUpController],
  providers: [SsoSignInService, SsoRateLimitService, SsoRelyingParty, SsoCallbackChecks, SsoAuthorization, SsoStepUpService],
  exports: [SsoSignInService],
})
export class SsoModule {}
