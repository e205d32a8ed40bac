import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ScimTokenResolver } from '@app/credentials';
import { ScimTokenOffboarding } from '@app/people';
import { ScimToken } from './entities/scim-token.entity';
import { ScimTokensRepository } from './scim-tokens.repository';
import { ScimTokensService } from './scim-tokens.service';

/**
 * The organisations' SCIM tokens (the `scim_tokens` table) and the two roles they play outside
 * SCIM: the `ScimTokenResolver` the global guard checks `scim_` tokens with, and the
 * `ScimTokenOffboarding` member removal and demotion end a person's tokens with (`people`).
 * Global, because `people` cannot import this library (it sits above `people` and `credentials`):
 * every application that builds `MembersService` imports this module, or it does not start.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ScimToken])],
  providers: [
    ScimTokensRepository,
    ScimTokensService,
    { provide: ScimTokenResolver, useExisting: ScimTokensService },
    { provide: ScimTokenOffboarding, useExisting: ScimTokensService },
  ],
  exports: [ScimTokensService, ScimTokenResolver, ScimTokenOffboarding],
})
export class ScimTokensModule {}
