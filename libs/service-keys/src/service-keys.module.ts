import { Module } from '@nestjs/common';
import { ServiceKeysController } from './service-keys.controller';
import { ServiceKeysService } from './service-keys.service';

/** REST for service keys and their derived project tokens, on the credentials store (`@app/credentials`). */
@Module({
  controllers: [ServiceKeysController],
  providers: [ServiceKeysService],
  exports: [ServiceKeysService],
})
export class ServiceKeysModule {}
