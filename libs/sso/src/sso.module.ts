import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { IdentityProviderController } from './identity-provider.controller';

/** Single sign-on over HTTP (`docs/sso.md`): the identity-provider settings routes. */
@Module({
  imports: [IdentityModule],
  controllers: [IdentityProviderController],
})
export class SsoModule {}
