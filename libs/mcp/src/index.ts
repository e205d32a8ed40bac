export * from './capability';
