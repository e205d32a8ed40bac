import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { ServiceKeysController } from './service-keys.controller';
import { ServiceKeyCreators } from './service-key-creators';
import { ServiceKeysService } from './service-keys.service';

/** REST for service keys and their derived project tokens, on the credentials store (`@app/credentials`). */
@Module({
  imports: [TenancyModule],
  controllers: [ServiceKeysController],
  providers: [ServiceKeysService, ServiceKeyCreators],
  exports: [ServiceKeysService],
})
export class ServiceKeysModule {}
