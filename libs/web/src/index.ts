export * from './form-csrf';
export * from './html';
export * from './page';
export * from './page-error.filter';
