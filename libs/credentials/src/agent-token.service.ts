import { Injectable } from '@nestjs/common';
import type { AgentPrincipal } from './principal';
import { AgentTokensRepository } from './store/agent-tokens.repository';
import { hashToken, isWellFormedToken, TOKEN_PREFIXES } from './token-format';
import { TokenUsageRecorder } from './token-usage.recorder';

/**
 * Resolves a presented `dga_` secret to its principal: a checksum test first (no database
 * touch for garbage), then one indexed lookup by hash that also refuses revoked and expired rows.
 * The use is noted in memory for `last_used_at` (written later, in batches, off the request path).
 */
@Injectable()
export class AgentTokenService {
  constructor(
    private readonly tokens: AgentTokensRepository,
    private readonly usage: TokenUsageRecorder,
  ) {}

  async resolve(token: string): Promise<AgentPrincipal | null> {
    if (!isWellFormedToken(token, TOKEN_PREFIXES.agentAccess)) return null;
    const row = await this.tokens.findLiveByHash(hashToken(token));
    if (!row) return null;
    this.usage.record(row.id, row.lastUsedAt);
    return {
      kind: 'agent',
      tokenId: row.id,
      source: row.source,
      organizationId: row.organizationId,
      projectId: row.projectId,
      permissions: row.permissions,
      serviceKeyId: row.serviceKeyId,
      grantId: row.grantId,
      clientId: row.clientId,
      userId: row.userId,
      expiresAt: row.expiresAt,
    };
  }
}
