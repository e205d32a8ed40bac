import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { API_KEY_PERMISSION_NAMES, ApiKeyPermission, generateToken, hashToken, TOKEN_PREFIXES } from '@app/credentials';
import { isUuid, queryReturning } from '@app/database';
import { ApiKeyNotFoundError } from './api-keys.errors';
import type { ApiKeyDto, ApiKeyStatus, CreatedApiKeyDto, RevokedApiKeyDto } from './dto/api-key.dto';

interface ApiKeyRow {
  id: string;
  name: string;
  permissions: ApiKeyPermission[];
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const COLUMNS = 'id, name, permissions, created_by, created_at, expires_at, revoked_at, last_used_at';

/**
 * Scoped `rk_` keys of an organisation. The secret exists only in the creation response; the
 * table holds its SHA-256 digest. Only an admin's session manages keys (never a key itself).
 */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly dataSource: DataSource,
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
      const [row] = (await em.query(
        `INSERT INTO api_keys (organization_id, name, key_hash, permissions, created_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [organizationId, input.name, hashToken(key), permissions, userId, input.expiresAt ?? null],
      )) as ApiKeyRow[];
      await this.audit.record(em, {
        organizationId,
        actorType: 'user',
        actorId: userId,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: row!.id,
        metadata: { name: row!.name, permissions, expiresAt: iso(row!.expires_at) },
        origin,
      });
      return {
        id: row!.id,
        key,
        name: row!.name,
        permissions: row!.permissions,
        createdAt: iso(row!.created_at)!,
        expiresAt: iso(row!.expires_at),
      };
    });
  }

  async list(organizationId: string): Promise<ApiKeyDto[]> {
    const rows: ApiKeyRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM api_keys WHERE organization_id = $1 ORDER BY created_at DESC, id DESC`,
      [organizationId],
    );
    const now = Date.now();
    return rows.map((row) => toDto(row, now));
  }

  /** Idempotent: revoking a revoked key answers its original revocation time, without a new event. */
  async revoke(organizationId: string, id: string, userId: string, origin?: RequestOrigin): Promise<RevokedApiKeyDto> {
    if (!isUuid(id)) throw new ApiKeyNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const [revoked] = await queryReturning<{ id: string; name: string; revoked_at: Date }>(
        em,
        `UPDATE api_keys SET revoked_at = now()
          WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL
          RETURNING id, name, revoked_at`,
        [id, organizationId],
      );
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
        return { id, status: 'revoked', revokedAt: iso(revoked.revoked_at)! };
      }
      const existing: { revoked_at: Date }[] = await em.query(
        'SELECT revoked_at FROM api_keys WHERE id = $1 AND organization_id = $2',
        [id, organizationId],
      );
      if (!existing[0]) throw new ApiKeyNotFoundError();
      return { id, status: 'revoked', revokedAt: iso(existing[0].revoked_at)! };
    });
  }
}

function toDto(row: ApiKeyRow, now: number): ApiKeyDto {
  const status: ApiKeyStatus = row.revoked_at
    ? 'revoked'
    : row.expires_at && new Date(row.expires_at).getTime() <= now
      ? 'expired'
      : 'active';
  return {
    id: row.id,
    name: row.name,
    permissions: row.permissions,
    status,
    createdBy: row.created_by,
    createdAt: iso(row.created_at)!,
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
    lastUsedAt: iso(row.last_used_at),
  };
}

function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
