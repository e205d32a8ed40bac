import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthorizationCode } from '../entities/authorization-code.entity';
import { AuthorizationRequest } from '../entities/authorization-request.entity';
import { OAuthClient } from '../entities/oauth-client.entity';
import { AuthorizationCodesRepository } from './authorization-codes.repository';
import { AuthorizationRequestsRepository } from './authorization-requests.repository';
import { OAuthClientsRepository } from './oauth-clients.repository';

/**
 * The tables the OAuth server owns (clients, consent requests, codes) and their repositories.
 * Separate from `OAuthModule` so that a context without HTTP (the command line) can register
 * them: the credentials' grants refer to clients.
 */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthClient, AuthorizationRequest, AuthorizationCode])],
  providers: [OAuthClientsRepository, AuthorizationRequestsRepository, AuthorizationCodesRepository],
  exports: [OAuthClientsRepository, AuthorizationRequestsRepository, AuthorizationCodesRepository],
})
export class OAuthStoreModule {}
