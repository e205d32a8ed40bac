export * from './audit-origin.decorator';
export * from './audit.module';
export * from './audit.service';
export * from './audit-events.service';
export * from './dto/list-audit-events.dto';
export type { AuditEvent } from './entities/audit-event.entity';
export * from './audit-events.repository';
