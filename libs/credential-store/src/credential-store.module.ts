import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentTokenLookup } from './agent-token-lookup';
import { ApiKeyStore } from './api-key.store';
import { CredentialRevoker } from './credential-revoker';
import { DerivedTokenStore } from './derived-token.store';
import { AgentToken } from './entities/agent-token.entity';
import { ApiKey } from './entities/api-key.entity';
import { OAuthGrant } from './entities/oauth-grant.entity';
import { RefreshToken } from './entities/refresh-token.entity';
import { ServiceKey } from './entities/service-key.entity';
import { OAuthAccessTokenStore } from './oauth-access-token.store';
import { OAuthGrantStore } from './oauth-grant.store';
import { RefreshTokenStore } from './refresh-token.store';
import { AgentTokensRepository } from './repositories/agent-tokens.repository';
import { DerivedTokensRepository } from './repositories/derived-tokens.repository';
import { ApiKeysRepository } from './repositories/api-keys.repository';
import { OAuthGrantsRepository } from './repositories/oauth-grants.repository';
import { RefreshTokensRepository } from './repositories/refresh-tokens.repository';
import { ServiceKeysRepository } from './repositories/service-keys.repository';
import { ServiceKeyStore } from './service-key.store';

/** What other libraries reach the credential tables through; the repositories stay inside. */
const STORE_SERVICES = [
  AgentTokenLookup,
  ApiKeyStore,
  ServiceKeyStore,
  DerivedTokenStore,
  OAuthGrantStore,
  OAuthAccessTokenStore,
  RefreshTokenStore,
  CredentialRevoker,
];

/**
 * The credential tables (`agent_tokens`, `api_keys`, `service_keys`, `oauth_grants`,
 * `oauth_refresh_tokens`): one repository each, queried only by this library's services.
 * Global, as the credentials it stores are used by every feature.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AgentToken, ApiKey, ServiceKey, OAuthGrant, RefreshToken])],
  providers: [AgentTokensRepository, DerivedTokensRepository, ApiKeysRepository, ServiceKeysRepository, OAuthGrantsRepository, RefreshTokensRepository, ...STORE_SERVICES],
  exports: STORE_SERVICES,
})
export class CredentialStoreModule {}
