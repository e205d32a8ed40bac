import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { AppConfig } from '@app/config';
import { ScimPrincipal, ScimTokenResolver } from '@app/credentials';
import { ScimTokenOffboarding, type ScimTokensOffboarded, userOf } from '@app/people';
import { generateToken, hashToken, secretHint, secretLast4, TOKEN_PREFIXES } from '@app/credential-store';
import { isUuid } from '@app/common';
import type { CreatedScimTokenDto, RevokedScimTokenDto, ScimTokenDto, ScimTokenListDto } from './dto/scim-token.dto';
import { ScimToken } from './entities/scim-token.entity';
import { ScimTokensRepository } from './scim-tokens.repository';
import { ScimTokenNotFoundError } from './scim-tokens.errors';

/** `last_used_at` is written at most this often per token. */
const LAST_USED_PRECISION_MS = 60_000;

/**
 * An organisation's SCIM tokens (their table: `ScimTokensRepository`): an admin makes, lists and
 * revokes them (each audited); the guard resolves a presented one by its digest.
 */
@Injectable()
export class ScimTokensService extends ScimTokenResolver implements ScimTokenOffboarding {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly tokens: ScimTokensRepository,
  ) {
    super();
  }

  async create(organizationId: string, input: { name: string; expiresAt?: string | null }, actor: AuditActor): Promise<CreatedScimTokenDto> {
    const token = generateToken(TOKEN_PREFIXES.scim);
    return this.dataSource.transaction(async (em) => {
      const row = await this.tokens.insert(em, {
        organizationId,
        name: input.name.trim(),
        tokenHash: hashToken(token),
        secretLast4: secretLast4(token),
        createdBy: userOf(actor),
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      });
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'scim_token.created',
        targetType: 'scim_token',
        targetId: row.id,
        metadata: { name: row.name, expiresAt: row.expiresAt?.toISOString() ?? null },
      });
      return { ...toDto(row), token, scimBaseUrl: `${this.config.baseUrl}/scim/v2` };
    });
  }

  /** The organisation's tokens not revoked (an expired one too, shown as such), newest first. */
  async list(organizationId: string): Promise<ScimTokenListDto> {
    const rows = await this.tokens.listLive(organizationId);
    return { items: rows.map(toDto) };
  }

  async revoke(organizationId: string, id: string, actor: AuditActor): Promise<RevokedScimTokenDto> {
    if (!isUuid(id)) throw new ScimTokenNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const row = await this.tokens.revoke(em, organizationId, id);
      if (!row) throw new ScimTokenNotFoundError();
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'scim_token.revoked',
        targetType: 'scim_token',
        targetId: row.id,
        metadata: { name: row.name },
      });
      return { id: row.id, revokedAt: row.revokedAt.toISOString() };
    });
  }

  /**
   * The live tokens `userId` made in the organisation end (or pass to `handOverTo`), each audited
   * (`scim_token.revoked` or `scim_token.handed_over`, with the reason), in `em`'s transaction
   * (SPEC §10: `scim_` tokens follow the rule of `rk_` keys).
   */
  async endOrHandOverCreatedBy(
    em: EntityManager,
    organizationId: string,
    userId: string,
    options: { handOverTo: string | null; reason: 'member_removed' | 'member_demoted' },
    actor: AuditActor,
  ): Promise<ScimTokensOffboarded> {
    const { handOverTo, reason } = options;
    const tokens = await this.tokens.endOrHandOverCreatedBy(em, organizationId, userId, handOverTo);
    for (const token of tokens) {
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: handOverTo ? 'scim_token.handed_over' : 'scim_token.revoked',
        targetType: 'scim_token',
        targetId: token.id,
        metadata: { name: token.name, reason, createdBy: userId, ...(handOverTo ? { handedOverTo: handOverTo } : {}) },
      });
    }
    return { outcome: handOverTo ? 'handed_over' : 'revoked', tokens };
  }

  /** Who made a live token (null: unknown, revoked, or made by no person). */
  makerOf(scimTokenId: string, em?: EntityManager): Promise<string | null> {
    return this.tokens.makerOf(scimTokenId, em);
  }

  /** The live token behind a presented `scim_` secret (form already checked), or null: revoked or past its expiry (the database's clock). */
  async resolve(token: string): Promise<ScimPrincipal | null> {
    const row = await this.tokens.findLiveByHash(hashToken(token));
    if (!row) return null;
    if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
      await this.tokens.touchLastUsed(row.id);
    }
    return { kind: 'scim', scimTokenId: row.id, organizationId: row.organizationId };
  }
}

function toDto(row: ScimToken): ScimTokenDto {
  return {
    id: row.id,
    name: row.name,
    hint: secretHint(TOKEN_PREFIXES.scim, row.secretLast4),
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
  };
}
