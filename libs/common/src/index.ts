export * from './domain-error';
export * from './openapi';
export * from './validation';
