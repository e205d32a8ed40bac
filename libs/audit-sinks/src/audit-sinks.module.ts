import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { AuditSinksController } from './audit-sinks.controller';
import { AuditSinksRepository } from './audit-sinks.repository';
import { AuditSinksService } from './audit-sinks.service';
import { AuditSinkDelivery } from './delivery/sink-delivery';
import { AuditSink, AuditSinkLease } from './entities/audit-sink.entity';

/** An organisation's audit sinks: their tables, the REST routes, the delivery from the chain. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditSink, AuditSinkLease]), AuditModule],
  controllers: [AuditSinksController],
  providers: [AuditSinksRepository, AuditSinksService, AuditSinkDelivery],
  exports: [AuditSinksService, AuditSinkDelivery],
})
export class AuditSinksModule {}
