import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IDENTITY_ENTITIES } from './entities';
import { IdentityLinkDirectory } from './identity-links.directory';
import { IdentityProviderDirectory } from './identity-provider.directory';
import { IdpMetadata } from './idp-metadata.service';
import { ProvisionedUserDirectory } from './provisioned-users.directory';

/**
 * Enterprise identity, without HTTP: organisations' OpenID Connect identity providers, their
 * claimed domains, people's links to IdP accounts, the people SCIM provisioned, and the IdPs'
 * discovery documents and key sets. The only module that queries its tables.
 */
@Module({
  imports: [TypeOrmModule.forFeature([...IDENTITY_ENTITIES])],
  providers: [IdentityProviderDirectory, IdentityLinkDirectory, IdpMetadata, ProvisionedUserDirectory],
  exports: [IdentityProviderDirectory, IdentityLinkDirectory, IdpMetadata, ProvisionedUserDirectory],
})
export class IdentityModule {}
