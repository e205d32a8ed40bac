import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { AuditSinksController } from './audit-sinks.controller';
import { AuditSinksRepository } from './audit-sinks.repository';
import { AuditSinksService } from './audit-sinks.service';
import { AuditSinkDelivery } from './delivery/sink-delivery';
import { AuditSink, AuditSinkLease } from './entities/audit-sink.entity';
import { AuditStreamPosition } from './entities/audit-stream-position.entity';
import { AuditStream } from './otlp/audit-stream';
import { AuditStreamRepository } from './otlp/audit-stream.repository';

/** An organisation's audit sinks: their tables, the REST routes, the delivery from the chain, the operator's OTLP stream. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditSink, AuditSinkLease, AuditStreamPosition]), AuditModule],
  controllers: [AuditSinksController],
  providers: [AuditSinksRepository, AuditSinksService, AuditSinkDelivery, AuditStreamRepository, AuditStream],
  exports: [AuditSinksService, AuditSinkDelivery, AuditStream],
})
export class AuditSinksModule {}
