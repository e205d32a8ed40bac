export type { IdJagClient, RoleMapping } from './entities';
export { IdentityProviderRecord, IdentityProviderDomain, ProvisionedUser } from './entities';
export * from './identity.errors';
export * from './identity.module';
export * from './identity-links.directory';
export * from './identity-provider.directory';
export * from './idp-metadata.service';
export * from './provisioned-users.directory';
