export * from './database.module';
export * from './database-connection';
export * from './embedded-postgres';
export * from './migrations';
export * from './pg-errors';
export * from './query-returning';
export * from './periodic-cleanup';
