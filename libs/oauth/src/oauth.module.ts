import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { CLIENT_NAMES, type ClientNames } from '@app/policy';
import { RateLimitModule } from '@app/rate-limit';
import { TenancyModule } from '@app/tenancy';
import { AgentGrantsController } from './agent-grants.controller';
import { ClientPolicyController } from './client-policy/client-policy.controller';
import { ClientPolicyService } from './client-policy/client-policy.service';
import { ClientMetadataModule } from './client-metadata/client-metadata.module';
import { AuthorizeController } from './authorize.controller';
import { AuthorizeRequestValidator } from './authorize-request.validator';
import { CodeExchangeService } from './code-exchange.service';
import { IdJagExchangeService } from './id-jag-exchange.service';
import { ConsentDecisionService } from './consent-decision.service';
import { ConsentViewService } from './consent-view.service';
import { OAuthCleanupService } from './oauth-cleanup.service';
import { ClientRegistrationService } from './client-registration.service';
import { OAuthClientsService } from './oauth-clients.service';
import { OAuthController } from './oauth.controller';
import { OAuthGrantsService } from './oauth-grants.service';
import { OAuthTokensService } from './oauth-tokens.service';
import { OrganizationClientsController } from './organization-clients.controller';
import { OrganizationClientsService } from './organization-clients.service';
import { OrganizationGrantsController } from './organization-grants.controller';
import { OAuthClientsRepository } from './store/oauth-clients.repository';
import { OAuthStoreModule } from './store/oauth-store.module';
import { RefreshRotationService } from './refresh-rotation.service';
import { TokenIssuer } from './token-issuer.service';
import { TokenRateLimit } from './token-rate-limit.service';
import { TokenRevocationService } from './token-revocation.service';

/**
 * The OAuth authorisation server for AI clients (SPEC §5): registration, authorize with login
 * and consent, token, revocation, and the person's list of connected clients. It owns the
 * clients, consent requests, codes and organisations' client policies; grants and tokens are the credentials store's.
 */
@Module({
  imports: [OAuthStoreModule, RateLimitModule, TenancyModule, ClientMetadataModule, IdentityModule],
  controllers: [OAuthController, AuthorizeController, AgentGrantsController, OrganizationGrantsController, OrganizationClientsController, ClientPolicyController],
  providers: [
    ClientRegistrationService,
    OrganizationClientsService,
    OAuthClientsService,
    AuthorizeRequestValidator,
    ConsentViewService,
    ConsentDecisionService,
    TokenIssuer,
    CodeExchangeService,
    RefreshRotationService,
    IdJagExchangeService,
    OAuthTokensService,
    TokenRevocationService,
    TokenRateLimit,
    OAuthGrantsService,
    OAuthCleanupService,
    ClientPolicyService,
    // The names of clients for the organisation's policy (`client.name` in its conditions).
    {
      provide: CLIENT_NAMES,
      useFactory: (clients: OAuthClientsRepository): ClientNames => ({ nameOf: async (id) => (await clients.namesOf([id])).get(id) ?? null }),
      inject: [OAuthClientsRepository],
    },
  ],
  exports: [OAuthGrantsService, ClientPolicyService, ClientRegistrationService, OrganizationClientsService, ClientMetadataModule],
})
export class OAuthModule {}
