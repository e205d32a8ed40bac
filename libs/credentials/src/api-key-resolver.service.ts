import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeyUsageRecorder } from './token-usage.recorder';
import type { ApiKeyPrincipal } from './principal';
import { hashToken, isWellFormedToken, TOKEN_PREFIXES } from './token-format';

/**
 * Resolves a presented `rk_` secret: checksum first, then one lookup by hash; expired or revoked
 * → null. A successful resolution notes the key's use (written later, off the request path).
 */
@Injectable()
export class ApiKeyResolver {
  constructor(
    private readonly dataSource: DataSource,
    private readonly usage: ApiKeyUsageRecorder,
  ) {}

  async resolve(key: string): Promise<ApiKeyPrincipal | null> {
    if (!isWellFormedToken(key, TOKEN_PREFIXES.apiKey)) return null;
    const rows: { id: string; organization_id: string; permissions: ApiKeyPrincipal['permissions'] }[] =
      await this.dataSource.query(
        `SELECT id, organization_id, permissions FROM api_keys
          WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
        [hashToken(key)],
      );
    const row = rows[0];
    if (!row) return null;
    this.usage.record(row.id);
    return { kind: 'api_key', apiKeyId: row.id, organizationId: row.organization_id, permissions: row.permissions };
  }
}
