import { Global, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { CredentialStoreModule } from '@app/credential-store';
import { IdentityModule } from '@app/identity';
import { TenancyModule } from '@app/tenancy';
import { AgentTokenService } from './agent-token.service';
import { ApiKeyResolver } from './api-key-resolver.service';
import { CredentialGuard } from './credential.guard';
import { OrganizationAccessPolicy } from './organization-access.policy';
import { OrganizationRouteCheck } from './organization-route.check';
import { PasswordResetService } from './password-reset.service';
import { RecentSignIn, RecentSignInGuard } from './recent-sign-in';
import { SessionReach } from './session-reach.service';
import { SessionTokenService } from './session-token.service';
import { ApiKeyUsageRecorder, TokenUsageRecorder } from './token-usage.recorder';
import { AgentTokenStrategy, ApiKeyStrategy, SessionJwtStrategy } from './strategies/bearer.strategies';

@Global()
@Module({
  imports: [PassportModule, DiscoveryModule, CredentialStoreModule, TenancyModule, IdentityModule],
  providers: [
    AgentTokenService,
    ApiKeyResolver,
    ApiKeyUsageRecorder,
    SessionTokenService,
    PasswordResetService,
    OrganizationAccessPolicy,
    SessionReach,
    OrganizationRouteCheck,
    AgentTokenStrategy,
    ApiKeyStrategy,
    SessionJwtStrategy,
    TokenUsageRecorder,
    RecentSignIn,
    RecentSignInGuard,
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
    SessionReach,
    RecentSignIn,
    RecentSignInGuard,
  ],
})
export class CredentialsModule {}
