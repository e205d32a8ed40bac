import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { PeopleModule } from '@app/people';
import { ScimTokensModule } from '@app/scim-tokens';
import { TenancyModule } from '@app/tenancy';
import { ScimController } from './scim.controller';
import { ScimTokensController } from './scim-tokens.controller';
import { ScimUsersService } from './scim-users.service';

/**
 * SCIM 2.0 at `/scim/v2` and the routes of the organisations' SCIM tokens. The tokens themselves
 * (the `scim_tokens` table, the guard's `ScimTokenResolver`, members' `ScimTokenOffboarding`) are
 * `ScimTokensModule`'s (`@app/scim-tokens`).
 */
@Module({
  imports: [ScimTokensModule, IdentityModule, PeopleModule, TenancyModule],
  controllers: [ScimTokensController, ScimController],
  providers: [ScimUsersService],
})
export class ScimModule {}
