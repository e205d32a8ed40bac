export type { IdJagClient, RoleMapping } from './entities';
export { IdentityProviderRecord, IdentityProviderDomain } from './entities';
export * from './identity.errors';
export * from './identity.module';
export * from './identity-links.directory';
export * from './identity-provider.directory';
export * from './idp-metadata.service';
export * from './idp-token-endpoint.service';
export * from './sso-routing.service';
