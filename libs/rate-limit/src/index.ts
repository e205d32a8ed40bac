export * from './rate-limit.module';
export * from './rate-limit.service';
