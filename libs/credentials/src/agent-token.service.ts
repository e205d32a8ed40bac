import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AgentPrincipal } from './principal';
import { hashToken, isWellFormedToken, TOKEN_PREFIXES } from './token-format';
import { TokenUsageRecorder } from './token-usage.recorder';

interface AgentTokenRow {
  id: string;
  source: AgentPrincipal['source'];
  organization_id: string;
  project_id: string;
  permissions: AgentPrincipal['permissions'];
  service_key_id: string | null;
  grant_id: string | null;
  client_id: string | null;
  user_id: string | null;
  expires_at: Date | null;
  last_used_at: Date | null;
}

/**
 * Resolves a presented `dga_` secret to its principal: a checksum test first (no database
 * touch for garbage), then one indexed lookup by hash that also refuses revoked and expired rows.
 * The use is noted in memory for `last_used_at` (written later, in batches, off the request path).
 */
@Injectable()
export class AgentTokenService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly usage: TokenUsageRecorder,
  ) {}

  async resolve(token: string): Promise<AgentPrincipal | null> {
    if (!isWellFormedToken(token, TOKEN_PREFIXES.agentAccess)) return null;
    const rows: AgentTokenRow[] = await this.dataSource.query(
      `SELECT id, source, organization_id, project_id, permissions, service_key_id, grant_id, client_id, user_id, expires_at, last_used_at
         FROM agent_tokens
        WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [hashToken(token)],
    );
    const row = rows[0];
    if (!row) return null;
    this.usage.record(row.id, row.last_used_at);
    return {
      kind: 'agent',
      tokenId: row.id,
      source: row.source,
      organizationId: row.organization_id,
      projectId: row.project_id,
      permissions: row.permissions,
      serviceKeyId: row.service_key_id,
      grantId: row.grant_id,
      clientId: row.client_id,
      userId: row.user_id,
      expiresAt: row.expires_at,
    };
  }
}
