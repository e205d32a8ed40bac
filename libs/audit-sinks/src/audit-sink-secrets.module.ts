import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditSinkStoredSecrets } from './audit-sink-stored-secrets';
import { AuditSinksRepository } from './audit-sinks.repository';
import { AuditSink, AuditSinkLease } from './entities/audit-sink.entity';

/**
 * The sinks' table and their stored secrets alone, without delivery, stream or retention: what
 * `secrets-rotate` of the command line needs (no loop starts with it).
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditSink, AuditSinkLease])],
  providers: [AuditSinksRepository, AuditSinkStoredSecrets],
  exports: [AuditSinksRepository, AuditSinkStoredSecrets],
})
export class AuditSinkSecretsModule {}
