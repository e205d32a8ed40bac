import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { DEFAULT_OVERLAP_SECONDS, isUuid, PAGE_SIZE_DEFAULT } from '@app/common';
import { AGENT_PERMISSION_NAMES, AgentPermission } from '@app/capabilities';
import { DerivedTokenStore, CredentialRevoker, derivedTokenConflict, ServiceKey, ServiceKeyStore, generateToken, hashToken, secretLast4, TOKEN_PREFIXES } from '@app/credential-store';
import { ProjectNotFoundError } from '@app/projects';
import { ProjectDirectory } from '@app/tenancy';
import { CreatedServiceKeyDto, DerivedProjectTokenDto, ProjectTokenListDto, RevokedProjectTokenDto, RotatedProjectTokenDto, RevokedServiceKeyDto, ServiceKeyCreatorDto, ServiceKeyDto, ServiceKeyListDto } from './dto/service-key.dto';
import { decodeCursor, pageOf } from './page-cursor';
import { ServiceKeyCreators } from './service-key-creators';
import { keyView, normalisePermissions, tokenView } from './service-key.views';
import { ProjectTokenExistsError, ProjectTokenNotActiveError, ProjectTokenNotFoundError, ProjectTokenRotatingError, ServiceKeyNotFoundError, ServiceKeyRevokedError } from './service-keys.errors';

/** A page of a list: `limit` items (default 50) after `cursor` (the previous page's `nextCursor`). */
export interface PageOptions {
  limit?: number;
  cursor?: string;
}

/**
 * Service keys of an organisation and the project tokens derived from them (seed, Rules 6–7).
 * Every query is scoped by the route's organisation, so another organisation's key is "not found".
 */
@Injectable()
export class ServiceKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: ServiceKeyStore,
    private readonly tokens: DerivedTokenStore,
    private readonly revoker: CredentialRevoker,
    private readonly audit: AuditService,
    private readonly projects: ProjectDirectory,
    private readonly creators: ServiceKeyCreators,
  ) {}

  async create(
    organizationId: string,
    input: { name: string; permissions?: AgentPermission[] },
    actor: AuditActor,
  ): Promise<CreatedServiceKeyDto> {
    const permissions = normalisePermissions(input.permissions ?? AGENT_PERMISSION_NAMES);
    return this.dataSource.transaction(async (em) => {
      const key = await this.keys.create(em, { organizationId, name: input.name, permissions, createdBy: actor.actorId });
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'service_key.created',
        targetType: 'service_key',
        targetId: key.id,
        metadata: { name: key.name, permissions },
      });
      return { id: key.id, name: key.name, permissions, status: 'active', createdAt: key.createdAt };
    });
  }

  /** A page of the organisation's keys, newest first, each with its derived tokens' metadata. */
  async list(organizationId: string, options: PageOptions = {}): Promise<ServiceKeyListDto> {
    const limit = options.limit ?? PAGE_SIZE_DEFAULT;
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const page = pageOf(await this.keys.pageForOrganization(organizationId, limit + 1, after), limit);
    const tokens = await this.tokens.listForServiceKeys(this.dataSource.manager, page.items.map((k) => k.id));
    const creators = await this.creators.of(organizationId, page.items);
    return {
      items: page.items.map((key) => keyView(key, tokens.filter((t) => t.serviceKeyId === key.id), creatorOf(creators, key))),
      nextCursor: page.nextCursor,
    };
  }

  async get(organizationId: string, keyId: string): Promise<ServiceKeyDto> {
    const key = await this.findKey(this.dataSource.manager, organizationId, keyId);
    const creators = await this.creators.of(organizationId, [key]);
    return keyView(key, await this.tokens.listForServiceKeys(this.dataSource.manager, [key.id]), creatorOf(creators, key));
  }

  /** A page of the key's derived tokens (metadata only), oldest first, revoked ones included. */
  async listTokens(organizationId: string, keyId: string, options: PageOptions = {}): Promise<ProjectTokenListDto> {
    const key = await this.findKey(this.dataSource.manager, organizationId, keyId);
    const limit = options.limit ?? PAGE_SIZE_DEFAULT;
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const page = pageOf(await this.tokens.pageForServiceKey(this.dataSource.manager, key.id, limit + 1, after), limit);
    return { items: page.items.map(tokenView), nextCursor: page.nextCursor };
  }

  /**
   * Revokes the key and, in the same transaction and with one UPDATE, every token derived from
   * it. Idempotent: a second call changes nothing and answers the first call's `revokedAt`.
   */
  async revoke(organizationId: string, keyId: string, actor: AuditActor): Promise<RevokedServiceKeyDto> {
    if (!isUuid(keyId)) throw new ServiceKeyNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const revoked = await this.revoker.revokeServiceKey(em, organizationId, keyId);
      if (!revoked) {
        const key = await this.findKey(em, organizationId, keyId);
        return { id: key.id, status: 'revoked', revokedAt: key.revokedAt!, revokedTokens: 0 };
      }
      const { revokedAt, revokedTokens: count } = revoked;
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'service_key.revoked',
        targetType: 'service_key',
        targetId: keyId,
        metadata: { revokedTokens: count },
      });
      return { id: keyId, status: 'revoked', revokedAt, revokedTokens: count };
    });
  }

  /**
   * Derives a `dga_` token for one project. The key row is share-locked, so a concurrent revoke
   * either waits for this token (and revokes it too) or makes this call fail with 409. One active
   * token per (key, project) is the database's unique partial index, not a read-then-write.
   */
  async deriveToken(
    organizationId: string,
    keyId: string,
    input: { projectId: string; expiresAt?: string | null },
    actor: AuditActor,
  ): Promise<DerivedProjectTokenDto> {
    const { projectId } = input;
    const validUntil = input.expiresAt ? new Date(input.expiresAt) : null;
    if (!isUuid(keyId)) throw new ServiceKeyNotFoundError();
    if (!isUuid(projectId)) throw new ProjectNotFoundError();
    const token = generateToken(TOKEN_PREFIXES.agentAccess);
    try {
      return await this.dataSource.transaction(async (em) => {
        const key = await this.keys.findForShare(em, organizationId, keyId);
        if (!key) throw new ServiceKeyNotFoundError();
        if (key.revokedAt) throw new ServiceKeyRevokedError();
        if (!(await this.projects.find(organizationId, projectId, em, { lock: 'share' }))) throw new ProjectNotFoundError();
        // A token of this pair that expired (or whose overlap ended) no longer holds its slot.
        await this.tokens.retireEndedRotation(em, keyId, projectId);
        const permissions = key.permissions;
        const row = await this.tokens.insert(em, {
          tokenHash: hashToken(token),
          source: 'service_key',
          organizationId,
          projectId,
          permissions,
          serviceKeyId: keyId,
          validUntil,
          secretLast4: secretLast4(token),
        });
        await this.audit.record(em, {
          organizationId,
          projectId,
          ...actor,
          action: 'project_token.derived',
          targetType: 'agent_token',
          targetId: row.id,
          metadata: { serviceKeyId: keyId, permissions, ...(validUntil ? { expiresAt: validUntil.toISOString() } : {}) },
          });
        return { id: row.id, token, projectId, serviceKeyId: keyId, permissions, createdAt: row.createdAt, expiresAt: validUntil };
      });
    } catch (error) {
      if (derivedTokenConflict(error) === 'active') {
        throw new ProjectTokenExistsError();
      }
      throw error;
    }
  }

  /**
   * Rotates the (key, project)'s active token: a new secret, shown once, while the old one keeps
   * working for `overlapSeconds` (its `expires_at`; the request lookup refuses it afterwards).
   * One transaction under the key's share lock (so a concurrent key revocation ends both): an
   * overlap already ended is retired, the old token's overlap starts with a conditional update
   * (a parallel rotation of the same token finds it no longer active: 409), and the new token
   * takes the active slot. A token still rotating out of the same pair is a 409, not ended early.
   */
  async rotateToken(
    organizationId: string,
    keyId: string,
    tokenId: string,
    input: { overlapSeconds?: number },
    actor: AuditActor,
  ): Promise<RotatedProjectTokenDto> {
    const overlapSeconds = input.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
    if (!isUuid(keyId) || !isUuid(tokenId)) throw new ProjectTokenNotFoundError();
    const token = generateToken(TOKEN_PREFIXES.agentAccess);
    try {
      return await this.dataSource.transaction(async (em) => {
        const key = await this.keys.findForShare(em, organizationId, keyId);
        if (!key) throw new ProjectTokenNotFoundError();
        if (key.revokedAt) throw new ServiceKeyRevokedError();
        const current = await this.tokens.findDerived(em, organizationId, keyId, tokenId);
        if (!current) throw new ProjectTokenNotFoundError();
        await this.tokens.retireEndedRotation(em, keyId, current.projectId);
        const rotating = await this.tokens.findRotatingOut(em, keyId, current.projectId);
        if (rotating && rotating.id !== tokenId) throw new ProjectTokenRotatingError(rotating.expiresAt ?? undefined);
        const old = await this.tokens.startRotation(em, organizationId, keyId, tokenId, overlapSeconds);
        if (!old) throw new ProjectTokenNotActiveError();
        const permissions = key.permissions;
        const row = await this.tokens.insert(em, {
          tokenHash: hashToken(token),
          source: 'service_key',
          organizationId,
          projectId: old.projectId,
          permissions,
          serviceKeyId: keyId,
          validUntil: old.validUntil,
          secretLast4: secretLast4(token),
        });
        await this.audit.record(em, {
          organizationId,
          projectId: old.projectId,
          ...actor,
          action: 'project_token.rotated',
          targetType: 'agent_token',
          targetId: row.id,
          metadata: { serviceKeyId: keyId, replacesTokenId: tokenId, rotatingOutUntil: old.expiresAt, overlapSeconds },
          });
        return {
          id: row.id,
          token,
          projectId: old.projectId,
          serviceKeyId: keyId,
          permissions,
          createdAt: row.createdAt,
          expiresAt: old.validUntil,
          replacesTokenId: tokenId,
          rotatingOutUntil: old.expiresAt,
        };
      });
    } catch (error) {
      const conflict = derivedTokenConflict(error);
      if (conflict === 'rotating') throw new ProjectTokenRotatingError();
      if (conflict === 'active') throw new ProjectTokenNotActiveError();
      throw error;
    }
  }

  /** Revokes one derived token. Idempotent: a second call answers the first call's `revokedAt`. */
  async revokeToken(organizationId: string, keyId: string, tokenId: string, actor: AuditActor): Promise<RevokedProjectTokenDto> {
    if (!isUuid(keyId) || !isUuid(tokenId)) throw new ProjectTokenNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const revoked = await this.revoker.revokeProjectToken(em, organizationId, keyId, tokenId);
      if (!revoked) {
        const existing = await this.tokens.findDerived(em, organizationId, keyId, tokenId);
        if (!existing) throw new ProjectTokenNotFoundError();
        return { id: tokenId, status: 'revoked', revokedAt: existing.revokedAt! };
      }
      await this.audit.record(em, {
        organizationId,
        projectId: revoked.projectId,
        ...actor,
        action: 'project_token.revoked',
        targetType: 'agent_token',
        targetId: tokenId,
        metadata: { serviceKeyId: keyId, ...(revoked.alsoRevoked.length ? { rotatingOutTokensRevoked: revoked.alsoRevoked } : {}) },
      });
      return { id: tokenId, status: 'revoked', revokedAt: revoked.revokedAt };
    });
  }

  private async findKey(em: EntityManager, organizationId: string, keyId: string): Promise<ServiceKey> {
    if (!isUuid(keyId)) throw new ServiceKeyNotFoundError();
    const key = await this.keys.find(em, organizationId, keyId);
    if (!key) throw new ServiceKeyNotFoundError();
    return key;
  }
}

function creatorOf(creators: Map<string, ServiceKeyCreatorDto>, key: ServiceKey) {
  return (key.createdBy && creators.get(key.createdBy)) || null;
}
