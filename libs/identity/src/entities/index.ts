import { IdentityLink } from './identity-link.entity';
import { IdentityProviderDomain } from './identity-provider-domain.entity';
import { IdentityProviderRecord } from './identity-provider.entity';
import { IdentityProviderRedirect } from './identity-provider-redirect.entity';
import { ProvisionedUser } from './provisioned-user.entity';
import { SsoState } from './sso-state.entity';

export { IdentityLink, IdentityProviderDomain, IdentityProviderRecord, IdentityProviderRedirect, ProvisionedUser, SsoState };
export type { IdJagClient, RoleMapping } from './identity-provider.entity';

/** Identity's entities, registered together. */
export const IDENTITY_ENTITIES = [IdentityProviderRecord, IdentityProviderDomain, IdentityProviderRedirect, IdentityLink, ProvisionedUser, SsoState];
