export * from './app-config';
export * from './config.module';
export * from './env.schema';
export * from './secret-cipher';
