export * from './domain-error';
export * from './json-depth';
export * from './openapi';
export * from './validation';
export * from './text-safety';
export * from './http-status';
export * from './rotate.dto';
export * from './uuid';
