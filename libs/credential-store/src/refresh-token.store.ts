import { Injectable } from '@nestjs/common';
import { RefreshTokensRepository } from './repositories/refresh-tokens.repository';

/**
 * The rotating `dgr_` refresh tokens of grants (`oauth_refresh_tokens`): issue, find by digest,
 * the one winning rotation, and the cleanup. Revocations go through `CredentialRevoker`.
 */
@Injectable()
export class RefreshTokenStore {
  constructor(private readonly tokens: RefreshTokensRepository) {}

  insert(...args: Parameters<RefreshTokensRepository['insert']>): ReturnType<RefreshTokensRepository['insert']> {
    return this.tokens.insert(...args);
  }

  findByHash(...args: Parameters<RefreshTokensRepository['findByHash']>): ReturnType<RefreshTokensRepository['findByHash']> {
    return this.tokens.findByHash(...args);
  }

  rotate(...args: Parameters<RefreshTokensRepository['rotate']>): ReturnType<RefreshTokensRepository['rotate']> {
    return this.tokens.rotate(...args);
  }

  rotationState(...args: Parameters<RefreshTokensRepository['rotationState']>): ReturnType<RefreshTokensRepository['rotationState']> {
    return this.tokens.rotationState(...args);
  }

  deleteSpent(...args: Parameters<RefreshTokensRepository['deleteSpent']>): ReturnType<RefreshTokensRepository['deleteSpent']> {
    return this.tokens.deleteSpent(...args);
  }
}
