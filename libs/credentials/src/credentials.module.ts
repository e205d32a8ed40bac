import { Global, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenancyModule } from '@app/tenancy';
import { AgentTokenService } from './agent-token.service';
import { ApiKeyResolver } from './api-key-resolver.service';
import { CredentialGuard } from './credential.guard';
import { CredentialRevoker } from './credential-revoker';
import { AgentToken } from './entities/agent-token.entity';
import { ApiKey } from './entities/api-key.entity';
import { OAuthGrant } from './entities/oauth-grant.entity';
import { RefreshToken } from './entities/refresh-token.entity';
import { ServiceKey } from './entities/service-key.entity';
import { OrganizationAccessPolicy } from './organization-access.policy';
import { OrganizationRouteCheck } from './organization-route.check';
import { PasswordResetService } from './password-reset.service';
import { SessionTokenService } from './session-token.service';
import { AgentTokensRepository } from './store/agent-tokens.repository';
import { ApiKeysRepository } from './store/api-keys.repository';
import { OAuthGrantsRepository } from './store/oauth-grants.repository';
import { RefreshTokensRepository } from './store/refresh-tokens.repository';
import { ServiceKeysRepository } from './store/service-keys.repository';
import { ApiKeyUsageRecorder, TokenUsageRecorder } from './token-usage.recorder';
import { AgentTokenStrategy, ApiKeyStrategy, SessionJwtStrategy } from './strategies/bearer.strategies';

/** The credential tables' repositories and their one revoker: what the features build on. */
const CREDENTIAL_STORES = [
  AgentTokensRepository,
  ApiKeysRepository,
  ServiceKeysRepository,
  OAuthGrantsRepository,
  RefreshTokensRepository,
  CredentialRevoker,
];

@Global()
@Module({
  imports: [PassportModule, DiscoveryModule, TypeOrmModule.forFeature([AgentToken, ApiKey, ServiceKey, OAuthGrant, RefreshToken]), TenancyModule],
  providers: [
    AgentTokenService,
    ApiKeyResolver,
    ApiKeyUsageRecorder,
    SessionTokenService,
    PasswordResetService,
    OrganizationAccessPolicy,
    OrganizationRouteCheck,
    AgentTokenStrategy,
    ApiKeyStrategy,
    SessionJwtStrategy,
    TokenUsageRecorder,
    ...CREDENTIAL_STORES,
    CredentialGuard,
    { provide: APP_GUARD, useExisting: CredentialGuard },
  ],
  exports: [
    CredentialGuard,
    PasswordResetService,
    AgentTokenService,
    TokenUsageRecorder,
    ApiKeyUsageRecorder,
    SessionTokenService,
    OrganizationAccessPolicy,
    TypeOrmModule,
    ...CREDENTIAL_STORES,
  ],
})
export class CredentialsModule {}
