export * from './scim.module';
export * from './scim.errors';
export * from './scim-exception.filter';
export * from './scim-users.service';
export { SCIM_CONTENT_TYPE, SCIM_SCHEMAS } from './scim-schemas';
