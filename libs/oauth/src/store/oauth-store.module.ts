import { Module } from '@nestjs/common';
import { OrganizationClientOwnership } from '@app/identity';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthorizationCode } from '../entities/authorization-code.entity';
import { AuthorizationRequest } from '../entities/authorization-request.entity';
import { IdJagAssertion } from '../entities/id-jag-assertion.entity';
import { OAuthClient } from '../entities/oauth-client.entity';
import { OrganizationClientPolicy } from '../client-policy/client-policy.entity';
import { ClientPolicyRepository } from '../client-policy/client-policy.repository';
import { AuthorizationCodesRepository } from './authorization-codes.repository';
import { AuthorizationRequestsRepository } from './authorization-requests.repository';
import { IdJagAssertionsRepository } from './id-jag-assertions.repository';
import { OAuthClientsRepository } from './oauth-clients.repository';

/**
 * The tables the OAuth server owns (clients, consent requests, codes, organisations' client policies, used ID-JAGs) and their repositories.
 * Separate from `OAuthModule` so that a context without HTTP (the command line) can register
 * them: the credentials' grants refer to clients.
 */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthClient, AuthorizationRequest, AuthorizationCode, OrganizationClientPolicy, IdJagAssertion])],
  // The identity settings ask it which clients an organisation's idJagClients may name (SPEC §10).
  providers: [{ provide: OrganizationClientOwnership, useExisting: OAuthClientsRepository }, OAuthClientsRepository, AuthorizationRequestsRepository, AuthorizationCodesRepository, ClientPolicyRepository, IdJagAssertionsRepository],
  exports: [OrganizationClientOwnership, OAuthClientsRepository, AuthorizationRequestsRepository, AuthorizationCodesRepository, ClientPolicyRepository, IdJagAssertionsRepository],
})
export class OAuthStoreModule {}
