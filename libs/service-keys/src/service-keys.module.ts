import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenancyModule } from '@app/tenancy';
import { ServiceKey } from './entities/service-key.entity';
import { ServiceKeysController } from './service-keys.controller';
import { ServiceKeysService } from './service-keys.service';

@Module({
  imports: [TypeOrmModule.forFeature([ServiceKey]), TenancyModule],
  controllers: [ServiceKeysController],
  providers: [ServiceKeysService],
  exports: [ServiceKeysService],
})
export class ServiceKeysModule {}
