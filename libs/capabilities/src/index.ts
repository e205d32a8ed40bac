export * from './capabilities.module';
export * from './capability';
export * from './capability-registry';
