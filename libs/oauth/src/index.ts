export * from './oauth.module';
export * from './store/oauth-store.module';
export * from './oauth-grants.service';
export * from './oauth.errors';
export type { OAuthClient } from './entities/oauth-client.entity';
export type { AuthorizationRequest } from './entities/authorization-request.entity';
export type { AuthorizationCode } from './entities/authorization-code.entity';
export * from './oauth-cleanup.service';
export * from './views/error.view';
