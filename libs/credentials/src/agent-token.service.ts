import { Injectable } from '@nestjs/common';
import { AgentTokenLookup, hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';
import type { AgentPrincipal } from './principal';
import { RefusedTokens } from './refused-tokens';
import { TokenUsageRecorder } from './token-usage.recorder';

/**
 * Resolves a presented `dga_` secret to its principal: a checksum test first (no database
 * touch for garbage), then one indexed lookup by hash that also refuses revoked and expired rows.
 * The use is noted in memory for `last_used_at` (written later, in batches, off the request path).
 * A token the database refused is remembered (`RefusedTokens`): presented again, it is refused
 * without a query.
 */
@Injectable()
export class AgentTokenService {
  constructor(
    private readonly tokens: AgentTokenLookup,
    private readonly usage: TokenUsageRecorder,
  ) {}

  private readonly refused = new RefusedTokens();

  async resolve(token: string): Promise<AgentPrincipal | null> {
    if (!isWellFormedToken(token, TOKEN_PREFIXES.agentAccess)) return null;
    const digest = hashToken(token);
    if (this.refused.has(digest)) return null;
    // A failed lookup (the database unavailable) throws and is not remembered: only a refusal is.
    const row = await this.tokens.findLiveByHash(digest);
    if (!row) {
      this.refused.add(digest);
      return null;
    }
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
      serviceKeyName: row.serviceKeyName,
      userEmail: row.userEmail,
      expiresAt: row.expiresAt,
      policyVersion: row.policyVersion,
    };
  }
}
