export * from './discovery.module';
