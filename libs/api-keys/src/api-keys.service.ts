import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { decodeKeysetCursor, encodeKeysetCursor, DEFAULT_OVERLAP_SECONDS, isUuid, keysetPage, PAGE_SIZE_DEFAULT } from '@app/common';
import { API_KEY_PERMISSION_NAMES, ApiKey, ApiKeyPermission, ApiKeyStore, CredentialRevoker, generateToken, hashToken, TOKEN_PREFIXES, secretHint, secretLast4 } from '@app/credential-store';
import { requireUser } from '@app/people';
import { ApiKeyNotFoundError, ApiKeyNotActiveError, ApiKeyRotatingError } from './api-keys.errors';
import type { ApiKeyDto, ApiKeyListDto, ApiKeyStatus, CreatedApiKeyDto, RevokedApiKeyDto, RotatedApiKeyDto } from './dto/api-key.dto';

/**
 * Scoped `rk_` keys of an organisation. The secret exists only in the creation response; the
 * table holds its SHA-256 digest. Only an admin's session manages keys (never a key itself).
 */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: ApiKeyStore,
    private readonly revoker: CredentialRevoker,
    private readonly audit: AuditService,
  ) {}

  async create(
    organizationId: string,
    input: { name: string; permissions: ApiKeyPermission[]; expiresAt?: string | null },
    actor: AuditActor,
  ): Promise<CreatedApiKeyDto> {
    const createdBy = requireUser(actor);
    // Catalogue order, no duplicates.
    const permissions = API_KEY_PERMISSION_NAMES.filter((p) => input.permissions.includes(p));
    const key = generateToken(TOKEN_PREFIXES.apiKey);
    return this.dataSource.transaction(async (em) => {
      const row = await this.keys.create(em, {
        organizationId,
        name: input.name,
        keyHash: hashToken(key),
        permissions,
        createdBy,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
        secretLast4: secretLast4(key),
      });
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: row.id,
        metadata: { name: row.name, permissions, expiresAt: iso(row.expiresAt) },
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

  /** The organisation's keys, newest first, a page at a time (keyset: `nextCursor` continues). */
  async list(organizationId: string, options: { limit?: number; cursor?: string } = {}): Promise<ApiKeyListDto> {
    const limit = options.limit ?? PAGE_SIZE_DEFAULT;
    const after = options.cursor === undefined ? undefined : decodeKeysetCursor(options.cursor);
    const page = keysetPage(await this.keys.page(organizationId, limit + 1, after), limit, (last) => encodeKeysetCursor(last.position));
    const now = Date.now();
    return { items: page.items.map((row) => toDto(row, now)), nextCursor: page.nextCursor };
  }

  /** One key of the organisation (what revoking it would end); another organisation's is "not found". */
  async get(organizationId: string, id: string): Promise<ApiKeyDto> {
    if (!isUuid(id)) throw new ApiKeyNotFoundError();
    const row = await this.keys.find(this.dataSource.manager, organizationId, id);
    if (!row) throw new ApiKeyNotFoundError();
    return toDto(row, Date.now());
  }

  /**
   * A new secret for the same key (name, permissions, creator, expiry), shown once; the old key
   * keeps working for `overlapSeconds` (or until its own earlier expiry) and names its
   * replacement. One conditional update decides, so of parallel rotations of a key one wins and
   * the others get 409; a key whose predecessor is still rotating out is a 409 as well.
   */
  async rotate(organizationId: string, id: string, input: { overlapSeconds?: number }, actor: AuditActor): Promise<RotatedApiKeyDto> {
    const overlapSeconds = input.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
    if (!isUuid(id)) throw new ApiKeyNotFoundError();
    const secret = generateToken(TOKEN_PREFIXES.apiKey);
    return this.dataSource.transaction(async (em) => {
      const old = await this.keys.find(em, organizationId, id);
      if (!old) throw new ApiKeyNotFoundError();
      const predecessor = await this.keys.findRotatingOutPredecessor(em, id);
      if (predecessor) throw new ApiKeyRotatingError(predecessor.expiresAt!);
      const replacementId = randomUUID();
      const rotated = await this.keys.startRotation(em, organizationId, id, replacementId, overlapSeconds);
      if (!rotated) throw new ApiKeyNotActiveError();
      const row = await this.keys.create(em, {
        id: replacementId,
        organizationId,
        name: old.name,
        keyHash: hashToken(secret),
        permissions: old.permissions,
        createdBy: old.createdBy,
        expiresAt: old.expiresAt,
        secretLast4: secretLast4(secret),
      });
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'api_key.rotated',
        targetType: 'api_key',
        targetId: row.id,
        metadata: { name: row.name, replacesKeyId: id, rotatingOutUntil: iso(rotated.expiresAt), overlapSeconds },
      });
      return {
        id: row.id,
        key: secret,
        name: row.name,
        permissions: row.permissions,
        createdAt: iso(row.createdAt)!,
        expiresAt: iso(row.expiresAt),
        replacesKeyId: id,
        rotatingOutUntil: iso(rotated.expiresAt)!,
      };
    });
  }

  /** Idempotent: revoking a revoked key answers its original revocation time, without a new event. */
  async revoke(organizationId: string, id: string, actor: AuditActor): Promise<RevokedApiKeyDto> {
    if (!isUuid(id)) throw new ApiKeyNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const revoked = await this.revoker.revokeApiKey(em, organizationId, id);
      if (revoked) {
        await this.audit.record(em, {
          organizationId,
          ...actor,
          action: 'api_key.revoked',
          targetType: 'api_key',
          targetId: id,
          metadata: { name: revoked.name },
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
  const ended = row.expiresAt !== null && new Date(row.expiresAt).getTime() <= now;
  const status: ApiKeyStatus = row.revokedAt ? 'revoked' : ended ? 'expired' : row.replacedById ? 'rotating_out' : 'active';
  return {
    id: row.id,
    name: row.name,
    permissions: row.permissions,
    secretHint: secretHint(TOKEN_PREFIXES.apiKey, row.secretLast4),
    status,
    createdBy: row.createdBy,
    createdAt: iso(row.createdAt)!,
    expiresAt: iso(row.expiresAt),
    revokedAt: iso(row.revokedAt),
    lastUsedAt: iso(row.lastUsedAt),
    replacedBy: row.replacedById,
    rotatingOutUntil: status === 'rotating_out' ? iso(row.expiresAt) : null,
  };
}

function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
