import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { IdentityModule } from '@app/identity';
import { OrganizationsModule } from '@app/organizations';
import { TenancyModule } from '@app/tenancy';
import { IdTokenVerifier } from './id-token.verifier';
import { SsoSignInController } from './sso-sign-in.controller';
import { SsoSignInService } from './sso-sign-in.service';

/**
 * Single sign-on over HTTP: signing in through an organisation's OpenID Connect identity provider
 * (`/auth/sso/start`, `/auth/sso/callback`, linking an existing account at `/auth/sso/link`).
 */
@Module({
  imports: [IdentityModule, AuthModule, OrganizationsModule, TenancyModule],
  controllers: [SsoSignInController],
  providers: [SsoSignInService, IdTokenVerifier],
  exports: [SsoSignInService],
})
export class SsoModule {}
