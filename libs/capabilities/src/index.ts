export * from './agent-permissions';
export * from './capabilities.module';
export * from './capability';
export * from './capability-registry';
