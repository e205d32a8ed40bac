export * from './audit.module';
export * from './audit.service';
export * from './entities/audit-event.entity';
