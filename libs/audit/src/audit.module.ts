import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditEventsService } from './audit-events.service';
import { AuditService } from './audit.service';
import { AuditEvent } from './entities/audit-event.entity';

/** The audit trail: the transactional recorder and the event list (served by `organizations`). */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEvent])],
  providers: [AuditEventsRepository, AuditService, AuditEventsService],
  exports: [AuditService, AuditEventsService],
})
export class AuditModule {}
