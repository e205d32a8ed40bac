import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IDENTITY_ENTITIES } from './entities';
import { IdentityLinkDirectory } from './identity-links.directory';
import { IdentityProviderDirectory } from './identity-provider.directory';
import { IdpMetadata } from './idp-metadata.service';
import { DomainTxtLookup } from './domain-txt-resolver';
import { IdentityProviderSettings } from './identity-provider-settings.service';
import { TenancyModule } from '@app/tenancy';
import { SsoRouting } from './sso-routing.directory';
import { ProvisionedUserDirectory } from './provisioned-users.directory';
import { IdentityProviderRedirectDirectory } from './identity-provider-redirects.directory';
import { SsoRedirectUris } from './sso-redirect-uris.service';
import { SsoStateDirectory } from './sso-states.directory';
import { IdentityDomainVerification } from './identity-domain-verification.service';
import { RequireSsoLockout } from './require-sso-lockout';
import { IdentityStoredSecrets } from './identity-stored-secrets';

/**
 * Enterprise identity, without HTTP: organisations' OpenID Connect identity providers, their
 * claimed domains, people's links to IdP accounts, the people SCIM provisioned, and the IdPs'
 * discovery documents and key sets. The only module that queries its tables.
 */
@Module({
  imports: [TypeOrmModule.forFeature([...IDENTITY_ENTITIES]), TenancyModule],
  providers: [IdentityProviderDirectory, IdentityLinkDirectory, IdpMetadata, DomainTxtLookup, IdentityProviderSettings, SsoRouting, ProvisionedUserDirectory, IdentityProviderRedirectDirectory, SsoRedirectUris, SsoStateDirectory, IdentityDomainVerification, RequireSsoLockout, IdentityStoredSecrets],
  exports: [IdentityProviderDirectory, IdentityLinkDirectory, IdpMetadata, IdentityProviderSettings, SsoRouting, ProvisionedUserDirectory, SsoRedirectUris, SsoStateDirectory, IdentityStoredSecrets],
})
export class IdentityModule {}
