export * from './form-csrf';
export * from './form-params';
export * from './html';
export * from './page';
export * from './page-error.filter';
export * from './session-cookie';
