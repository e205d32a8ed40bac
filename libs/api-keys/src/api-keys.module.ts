import { Module } from '@nestjs/common';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { PermissionsController } from './permissions.controller';

/** Scoped `rk_` API keys and the permission catalogues. */
@Module({
  controllers: [ApiKeysController, PermissionsController],
  providers: [ApiKeysService],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
