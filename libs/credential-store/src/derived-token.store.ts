import { Injectable } from '@nestjs/common';
import { AgentTokensRepository } from './repositories/agent-tokens.repository';
import { DerivedTokensRepository } from './repositories/derived-tokens.repository';

/**
 * The project tokens derived from service keys (`agent_tokens` rows of source `service_key`):
 * issue, list and rotate, inside the caller's transaction. Revocations go through `CredentialRevoker`.
 */
@Injectable()
export class DerivedTokenStore {
  constructor(
    private readonly tokens: AgentTokensRepository,
    private readonly derived: DerivedTokensRepository,
  ) {}

  insert(...args: Parameters<AgentTokensRepository['insert']>): ReturnType<AgentTokensRepository['insert']> {
    return this.tokens.insert(...args);
  }

  listForServiceKeys(...args: Parameters<DerivedTokensRepository['listForServiceKeys']>): ReturnType<DerivedTokensRepository['listForServiceKeys']> {
    return this.derived.listForServiceKeys(...args);
  }

  pageForServiceKey(...args: Parameters<DerivedTokensRepository['pageForServiceKey']>): ReturnType<DerivedTokensRepository['pageForServiceKey']> {
    return this.derived.pageForServiceKey(...args);
  }

  findDerived(...args: Parameters<DerivedTokensRepository['findDerived']>): ReturnType<DerivedTokensRepository['findDerived']> {
    return this.derived.findDerived(...args);
  }

  retireEndedRotation(...args: Parameters<DerivedTokensRepository['retireEndedRotation']>): ReturnType<DerivedTokensRepository['retireEndedRotation']> {
    return this.derived.retireEndedRotation(...args);
  }

  findRotatingOut(...args: Parameters<DerivedTokensRepository['findRotatingOut']>): ReturnType<DerivedTokensRepository['findRotatingOut']> {
    return this.derived.findRotatingOut(...args);
  }

  startRotation(...args: Parameters<DerivedTokensRepository['startRotation']>): ReturnType<DerivedTokensRepository['startRotation']> {
    return this.derived.startRotation(...args);
  }
}
