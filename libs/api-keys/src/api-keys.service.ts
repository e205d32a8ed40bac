import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import {
  API_KEY_PERMISSION_NAMES,
  ApiKey,
  ApiKeyPermission,
  ApiKeysRepository,
  CredentialRevoker,
  generateToken,
  hashToken,
  TOKEN_PREFIXES,
} from '@app/credentials';
import { isUuid } from '@app/database';
import { ApiKeyNotFoundError } from './api-keys.errors';
import type { ApiKeyDto, ApiKeyStatus, CreatedApiKeyDto, RevokedApiKeyDto } from './dto/api-key.dto';

/**
 * Scoped `rk_` keys of an organisation. The secret exists only in the creation response; the
 * table holds its SHA-256 digest. Only an admin's session manages keys (never a key itself).
 */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: ApiKeysRepository,
    private readonly revoker: CredentialRevoker,
    private readonly audit: AuditService,
  ) {}

  async create(
    organizationId: string,
    input: { name: string; permissions: ApiKeyPermission[]; expiresAt?: string | null },
    userId: string,
    origin?: RequestOrigin,
  ): Promise<CreatedApiKeyDto> {
    // Catalogue order, no duplicates.
    const permissions = API_KEY_PERMISSION_NAMES.filter((p) => input.permissions.includes(p));
    const key = generateToken(TOKEN_PREFIXES.apiKey);
    return this.dataSource.transaction(async (em) => {
      const row = await this.keys.create(em, {
        organizationId,
        name: input.name,
        keyHash: hashToken(key),
        permissions,
        createdBy: userId,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      });
      await this.audit.record(em, {
        organizationId,
        actorType: 'user',
        actorId: userId,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: row.id,
        metadata: { name: row.name, permissions, expiresAt: iso(row.expiresAt) },
        origin,
      });
      return {
        id: row.id,
        key,
        name: row.name,
        permissions: row.permissions,
        createdAt: iso(row.createdAt)!,
        expiresAt: iso(row.expiresAt),
      };
    });
  }

  async list(organizationId: string): Promise<ApiKeyDto[]> {
    const rows = await this.keys.listForOrganization(organizationId);
    const now = Date.now();
    return rows.map((row) => toDto(row, now));
  }

  /** Idempotent: revoking a revoked key answers its original revocation time, without a new event. */
  async revoke(organizationId: string, id: string, userId: string, origin?: RequestOrigin): Promise<RevokedApiKeyDto> {
    if (!isUuid(id)) throw new ApiKeyNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const revoked = await this.revoker.revokeApiKey(em, organizationId, id);
      if (revoked) {
        await this.audit.record(em, {
          organizationId,
          actorType: 'user',
          actorId: userId,
          action: 'api_key.revoked',
          targetType: 'api_key',
          targetId: id,
          metadata: { name: revoked.name },
          origin,
        });
        return { id, status: 'revoked', revokedAt: iso(revoked.revokedAt)! };
      }
      const existing = await this.keys.find(em, organizationId, id);
      if (!existing) throw new ApiKeyNotFoundError();
      return { id, status: 'revoked', revokedAt: iso(existing.revokedAt)! };
    });
  }
}

function toDto(row: ApiKey, now: number): ApiKeyDto {
  const status: ApiKeyStatus = row.revokedAt
    ? 'revoked'
    : row.expiresAt && new Date(row.expiresAt).getTime() <= now
      ? 'expired'
      : 'active';
  return {
    id: row.id,
    name: row.name,
    permissions: row.permissions,
    status,
    createdBy: row.createdBy,
    createdAt: iso(row.createdAt)!,
    expiresAt: iso(row.expiresAt),
    revokedAt: iso(row.revokedAt),
    lastUsedAt: iso(row.lastUsedAt),
  };
}

function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
