import { Injectable } from '@nestjs/common';
import { ApiKeysRepository } from './repositories/api-keys.repository';

/**
 * The scoped `rk_` keys (`api_keys`): the request path's lookup and `last_used_at` writes, and
 * what the key routes and the audit names need. Revocations go through `CredentialRevoker`.
 */
@Injectable()
export class ApiKeyStore {
  constructor(private readonly keys: ApiKeysRepository) {}

  /** One lookup by digest, with the creator's role now; expired or revoked keys are not found. */
  findLiveByHash(keyHash: string): ReturnType<ApiKeysRepository['findLiveByHash']> {
    return this.keys.findLiveByHash(keyHash);
  }

  /** Writes batched `last_used_at` values in one statement. */
  recordUses(uses: Map<string, Date>): ReturnType<ApiKeysRepository['recordUses']> {
    return this.keys.recordUses(uses);
  }

  create(...args: Parameters<ApiKeysRepository['create']>): ReturnType<ApiKeysRepository['create']> {
    return this.keys.create(...args);
  }

  find(...args: Parameters<ApiKeysRepository['find']>): ReturnType<ApiKeysRepository['find']> {
    return this.keys.find(...args);
  }

  findRotatingOutPredecessor(...args: Parameters<ApiKeysRepository['findRotatingOutPredecessor']>): ReturnType<ApiKeysRepository['findRotatingOutPredecessor']> {
    return this.keys.findRotatingOutPredecessor(...args);
  }

  page(...args: Parameters<ApiKeysRepository['page']>): ReturnType<ApiKeysRepository['page']> {
    return this.keys.page(...args);
  }

  startRotation(...args: Parameters<ApiKeysRepository['startRotation']>): ReturnType<ApiKeysRepository['startRotation']> {
    return this.keys.startRotation(...args);
  }

  namesOf(...args: Parameters<ApiKeysRepository['namesOf']>): ReturnType<ApiKeysRepository['namesOf']> {
    return this.keys.namesOf(...args);
  }
}
