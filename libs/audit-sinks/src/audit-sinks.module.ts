import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { AuditSinksController } from './audit-sinks.controller';
import { AuditSinkSecretsModule } from './audit-sink-secrets.module';
import { AuditSinksService } from './audit-sinks.service';
import { AuditSinkDelivery } from './delivery/sink-delivery';
import { AuditSink, AuditSinkLease } from './entities/audit-sink.entity';
import { AuditStreamPosition } from './entities/audit-stream-position.entity';
import { AuditStream } from './otlp/audit-stream';
import { AuditStreamRepository } from './otlp/audit-stream.repository';
import { AuditRetentionController } from './retention/audit-retention.controller';
import { AuditRetentionJob } from './retention/audit-retention-job';

/** An organisation's audit sinks: their tables, the REST routes, the delivery from the chain, the operator's OTLP stream, retention. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditSink, AuditSinkLease, AuditStreamPosition]), AuditSinkSecretsModule, AuditModule],
  controllers: [AuditSinksController, AuditRetentionController],
  providers: [AuditSinksService, AuditSinkDelivery, AuditStreamRepository, AuditStream, AuditRetentionJob],
  exports: [AuditSinksService, AuditSinkDelivery, AuditStream, AuditRetentionJob, AuditSinkSecretsModule],
})
export class AuditSinksModule {}
