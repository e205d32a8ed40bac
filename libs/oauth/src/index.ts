export * from './oauth.module';
export * from './oauth-grants.service';
export * from './oauth.errors';
export * from './entities/oauth-client.entity';
export * from './entities/oauth-grant.entity';
export * from './entities/authorization-request.entity';
export * from './entities/authorization-code.entity';
export * from './entities/refresh-token.entity';
