import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ServiceKey } from './entities/service-key.entity';
import { ServiceKeysController } from './service-keys.controller';
import { ServiceKeysService } from './service-keys.service';

@Module({
  imports: [TypeOrmModule.forFeature([ServiceKey])],
  controllers: [ServiceKeysController],
  providers: [ServiceKeysService],
  exports: [ServiceKeysService],
})
export class ServiceKeysModule {}
