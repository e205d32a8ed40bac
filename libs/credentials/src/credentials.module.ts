import { Global, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenancyModule } from '@app/tenancy';
import { AgentTokenService } from './agent-token.service';
import { ApiKeyResolver } from './api-key-resolver.service';
import { CredentialGuard } from './credential.guard';
import { AgentToken } from './entities/agent-token.entity';
import { ApiKey } from './entities/api-key.entity';
import { OrganizationAccessPolicy } from './organization-access.policy';
import { OrganizationRouteCheck } from './organization-route.check';
import { SessionTokenService } from './session-token.service';
import { ApiKeyUsageRecorder, TokenUsageRecorder } from './token-usage.recorder';
import { AgentTokenStrategy, ApiKeyStrategy, SessionJwtStrategy } from './strategies/bearer.strategies';

@Global()
@Module({
  imports: [PassportModule, DiscoveryModule, TypeOrmModule.forFeature([AgentToken, ApiKey]), TenancyModule],
  providers: [
    AgentTokenService,
    ApiKeyResolver,
    ApiKeyUsageRecorder,
    SessionTokenService,
    OrganizationAccessPolicy,
    OrganizationRouteCheck,
    AgentTokenStrategy,
    ApiKeyStrategy,
    SessionJwtStrategy,
    TokenUsageRecorder,
    { provide: APP_GUARD, useClass: CredentialGuard },
  ],
  exports: [AgentTokenService, TokenUsageRecorder, ApiKeyUsageRecorder, SessionTokenService, OrganizationAccessPolicy, TypeOrmModule],
})
export class CredentialsModule {}
