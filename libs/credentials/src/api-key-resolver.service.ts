import { Injectable } from '@nestjs/common';
import { ApiKeyStore, hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';
import { ApiKeyUsageRecorder } from './token-usage.recorder';
import type { ApiKeyPrincipal } from './principal';

/**
 * Resolves a presented `rk_` secret: checksum first, then one lookup by hash; expired or revoked
 * → null. A successful resolution notes the key's use (written later, off the request path).
 */
@Injectable()
export class ApiKeyResolver {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly usage: ApiKeyUsageRecorder,
  ) {}

  async resolve(key: string): Promise<ApiKeyPrincipal | null> {
    if (!isWellFormedToken(key, TOKEN_PREFIXES.apiKey)) return null;
    const row = await this.keys.findLiveByHash(hashToken(key));
    if (!row) return null;
    this.usage.record(row.id);
    return { kind: 'api_key', apiKeyId: row.id, organizationId: row.organizationId, permissions: row.permissions };
  }
}
