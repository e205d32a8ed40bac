export * from './audit-sinks.module';
export * from './audit-sinks.dto';
export { AuditSinksService } from './audit-sinks.service';
export { AuditSinkDelivery } from './delivery/sink-delivery';
export { AuditStream } from './otlp/audit-stream';
export { AuditRetentionJob } from './retention/audit-retention-job';
export { AuditSinkStoredSecrets } from './audit-sink-stored-secrets';
export { AuditSinkSecretsModule } from './audit-sink-secrets.module';
