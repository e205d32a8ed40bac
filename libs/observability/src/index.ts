export * from './metrics';
export * from './metrics-endpoint';
export * from './observability.module';
export * from './request-observer';
