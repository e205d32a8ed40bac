import { Injectable } from '@nestjs/common';
import { AgentTokensRepository } from './repositories/agent-tokens.repository';

/**
 * The project tokens derived from service keys (`agent_tokens` rows of source `service_key`):
 * issue, list and rotate, inside the caller's transaction. Revocations go through `CredentialRevoker`.
 */
@Injectable()
export class DerivedTokenStore {
  constructor(private readonly tokens: AgentTokensRepository) {}

  insert(...args: Parameters<AgentTokensRepository['insert']>): ReturnType<AgentTokensRepository['insert']> {
    return this.tokens.insert(...args);
  }

  listForServiceKeys(...args: Parameters<AgentTokensRepository['listForServiceKeys']>): ReturnType<AgentTokensRepository['listForServiceKeys']> {
    return this.tokens.listForServiceKeys(...args);
  }

  pageForServiceKey(...args: Parameters<AgentTokensRepository['pageForServiceKey']>): ReturnType<AgentTokensRepository['pageForServiceKey']> {
    return this.tokens.pageForServiceKey(...args);
  }

  isLive(...args: Parameters<AgentTokensRepository['isLive']>): ReturnType<AgentTokensRepository['isLive']> {
    return this.tokens.isLive(...args);
  }

  findDerived(...args: Parameters<AgentTokensRepository['findDerived']>): ReturnType<AgentTokensRepository['findDerived']> {
    return this.tokens.findDerived(...args);
  }

  retireEndedRotation(...args: Parameters<AgentTokensRepository['retireEndedRotation']>): ReturnType<AgentTokensRepository['retireEndedRotation']> {
    return this.tokens.retireEndedRotation(...args);
  }

  findRotatingOut(...args: Parameters<AgentTokensRepository['findRotatingOut']>): ReturnType<AgentTokensRepository['findRotatingOut']> {
    return this.tokens.findRotatingOut(...args);
  }

  startRotation(...args: Parameters<AgentTokensRepository['startRotation']>): ReturnType<AgentTokensRepository['startRotation']> {
    return this.tokens.startRotation(...args);
  }
}
