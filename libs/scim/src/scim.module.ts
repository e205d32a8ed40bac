import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ScimTokenOffboarding, ScimTokenResolver } from '@app/credentials';
import { IdentityModule } from '@app/identity';
import { PeopleModule } from '@app/people';
import { TenancyModule } from '@app/tenancy';
import { ScimToken } from './entities/scim-token.entity';
import { ScimController } from './scim.controller';
import { ScimTokensController } from './scim-tokens.controller';
import { ScimTokensService } from './scim-tokens.service';
import { ScimUsersService } from './scim-users.service';

/**
 * SCIM 2.0 at `/scim/v2` and the organisations' SCIM tokens (the `scim_tokens` table). Provides
 * the `ScimTokenResolver` the global guard uses on SCIM routes.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ScimToken]), IdentityModule, PeopleModule, TenancyModule],
  controllers: [ScimTokensController, ScimController],
  providers: [
    ScimTokensService,
    ScimUsersService,
    { provide: ScimTokenResolver, useExisting: ScimTokensService },
    { provide: ScimTokenOffboarding, useExisting: ScimTokensService },
  ],
  exports: [ScimTokensService],
})
export class ScimModule {}
