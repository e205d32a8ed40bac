import { Injectable } from '@nestjs/common';
import { AgentTokensRepository } from './repositories/agent-tokens.repository';

/**
 * The OAuth access tokens (`agent_tokens` rows of source `oauth`): issue, the client of a
 * presented one, the live count of a grant, the cleanup. Revocations go through `CredentialRevoker`.
 */
@Injectable()
export class OAuthAccessTokenStore {
  constructor(private readonly tokens: AgentTokensRepository) {}

  insert(...args: Parameters<AgentTokensRepository['insert']>): ReturnType<AgentTokensRepository['insert']> {
    return this.tokens.insert(...args);
  }

  oauthClientOf(...args: Parameters<AgentTokensRepository['oauthClientOf']>): ReturnType<AgentTokensRepository['oauthClientOf']> {
    return this.tokens.oauthClientOf(...args);
  }

  countLiveForGrant(...args: Parameters<AgentTokensRepository['countLiveForGrant']>): ReturnType<AgentTokensRepository['countLiveForGrant']> {
    return this.tokens.countLiveForGrant(...args);
  }

  deleteSpentOAuthTokens(...args: Parameters<AgentTokensRepository['deleteSpentOAuthTokens']>): ReturnType<AgentTokensRepository['deleteSpentOAuthTokens']> {
    return this.tokens.deleteSpentOAuthTokens(...args);
  }
}
