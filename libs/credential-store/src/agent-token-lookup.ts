import { Injectable } from '@nestjs/common';
import { AgentTokensRepository } from './repositories/agent-tokens.repository';

/**
 * The request path's view of `agent_tokens`: the live token behind a presented digest, and the
 * batched `last_used_at` writes. What `credentials` resolves a `dga_` secret through.
 */
@Injectable()
export class AgentTokenLookup {
  constructor(private readonly tokens: AgentTokensRepository) {}

  /** One indexed lookup by digest; revoked and expired tokens are not found. */
  findLiveByHash(tokenHash: string): ReturnType<AgentTokensRepository['findLiveByHash']> {
    return this.tokens.findLiveByHash(tokenHash);
  }

  /** Writes batched `last_used_at` values in one statement; a stored later use is kept. */
  recordUses(uses: Map<string, Date>): ReturnType<AgentTokensRepository['recordUses']> {
    return this.tokens.recordUses(uses);
  }
}
