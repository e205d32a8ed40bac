export * from './domain-error';
export * from './json-depth';
