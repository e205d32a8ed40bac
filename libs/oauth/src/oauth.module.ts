import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { RateLimitModule } from '@app/rate-limit';
import { TenancyModule } from '@app/tenancy';
import { AgentGrantsController } from './agent-grants.controller';
import { AuthorizationService } from './authorization.service';
import { AuthorizeController } from './authorize.controller';
import { AuthorizationCode } from './entities/authorization-code.entity';
import { AuthorizationRequest } from './entities/authorization-request.entity';
import { OAuthClient } from './entities/oauth-client.entity';
import { OAuthGrant } from './entities/oauth-grant.entity';
import { RefreshToken } from './entities/refresh-token.entity';
import { LoginController } from './login.controller';
import { OAuthCleanupService } from './oauth-cleanup.service';
import { OAuthClientsService } from './oauth-clients.service';
import { OAuthController } from './oauth.controller';
import { OAuthGrantsService } from './oauth-grants.service';
import { OAuthTokensService } from './oauth-tokens.service';

/**
 * The OAuth authorisation server for AI clients (SPEC §5): registration, authorize with login
 * and consent, token, revocation, and the person's list of connected clients.
 */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthClient, OAuthGrant, AuthorizationRequest, AuthorizationCode, RefreshToken]), AuthModule, RateLimitModule, TenancyModule],
  controllers: [OAuthController, AuthorizeController, LoginController, AgentGrantsController],
  providers: [OAuthClientsService, AuthorizationService, OAuthTokensService, OAuthGrantsService, OAuthCleanupService],
  exports: [OAuthGrantsService],
})
export class OAuthModule {}
