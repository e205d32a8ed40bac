import { Global, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { CredentialStoreModule } from '@app/credential-store';
import { IdentityModule } from '@app/identity';
import { SessionsModule } from '@app/people';
import { TenancyModule } from '@app/tenancy';
import { AgentTokenService } from './agent-token.service';
import { ApiKeyResolver } from './api-key-resolver.service';
import { CredentialGuard } from './credential.guard';
import { OrganizationAccessPolicy } from './organization-access.policy';
import { OrganizationRouteCheck } from './organization-route.check';
import { RecentSignInGuard } from './recent-sign-in.guard';
import { ApiKeyUsageRecorder, TokenUsageRecorder } from './token-usage.recorder';
import { AgentTokenStrategy, ApiKeyStrategy, SessionJwtStrategy } from './strategies/bearer.strategies';

@Global()
@Module({
  imports: [PassportModule, DiscoveryModule, CredentialStoreModule, TenancyModule, IdentityModule, SessionsModule],
  providers: [
    AgentTokenService,
    ApiKeyResolver,
    ApiKeyUsageRecorder,
    OrganizationAccessPolicy,
    OrganizationRouteCheck,
    AgentTokenStrategy,
    ApiKeyStrategy,
    SessionJwtStrategy,
    TokenUsageRecorder,
    RecentSignInGuard,
    CredentialGuard,
    { provide: APP_GUARD, useExisting: CredentialGuard },
  ],
  exports: [
    SessionsModule,
    CredentialGuard,
    AgentTokenService,
    TokenUsageRecorder,
    ApiKeyUsageRecorder,
    OrganizationAccessPolicy,
    RecentSignInGuard,
  ],
})
export class CredentialsModule {}
