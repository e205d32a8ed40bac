import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import {
  actorOf,
  AGENT_PERMISSION_NAMES,
  AgentPermission,
  generateToken,
  hashToken,
  RestPrincipal,
  TOKEN_PREFIXES,
} from '@app/credentials';
import { isPgError, isUuid, PG_UNIQUE_VIOLATION } from '@app/database';
import { ProjectDirectory } from '@app/tenancy';
import {
  CreatedServiceKeyDto,
  DerivedProjectTokenDto,
  ProjectTokenDto,
  RevokedProjectTokenDto,
  RevokedServiceKeyDto,
  ServiceKeyDto,
} from './dto/service-key.dto';
import { ServiceKey } from './entities/service-key.entity';
import {
  ProjectNotFoundError,
  ProjectTokenExistsError,
  ProjectTokenNotFoundError,
  ServiceKeyNotFoundError,
  ServiceKeyRevokedError,
} from './service-keys.errors';

/** Who asks, for the audit trail. */
export interface Acting {
  principal: RestPrincipal;
  origin: RequestOrigin;
}

interface TokenRow {
  id: string;
  service_key_id: string;
  project_id: string;
  permissions: AgentPermission[];
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const TOKEN_COLUMNS = 'id, service_key_id, project_id, permissions, created_at, revoked_at, last_used_at';

/**
 * Service keys of an organisation and the project tokens derived from them (seed, Rules 6–7).
 * Every query is scoped by the route's organisation, so another organisation's key is "not found".
 */
@Injectable()
export class ServiceKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly projects: ProjectDirectory,
  ) {}

  async create(
    organizationId: string,
    input: { name: string; permissions?: AgentPermission[] },
    acting: Acting,
  ): Promise<CreatedServiceKeyDto> {
    const permissions = normalisePermissions(input.permissions ?? AGENT_PERMISSION_NAMES);
    const actor = actorOf(acting.principal);
    return this.dataSource.transaction(async (em) => {
      const key = await em.getRepository(ServiceKey).save(
        em.getRepository(ServiceKey).create({ organizationId, name: input.name, permissions, createdBy: actor.actorId }),
      );
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'service_key.created',
        targetType: 'service_key',
        targetId: key.id,
        metadata: { name: key.name, permissions },
        origin: acting.origin,
      });
      return { id: key.id, name: key.name, permissions, status: 'active', createdAt: key.createdAt };
    });
  }

  async list(organizationId: string): Promise<ServiceKeyDto[]> {
    const keys = await this.dataSource.getRepository(ServiceKey).find({
      where: { organizationId },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
    if (keys.length === 0) return [];
    const rows: TokenRow[] = await this.dataSource.query(
      `SELECT ${TOKEN_COLUMNS} FROM agent_tokens WHERE service_key_id = ANY($1) ORDER BY created_at, id`,
      [keys.map((k) => k.id)],
    );
    return keys.map((key) => keyView(key, rows.filter((r) => r.service_key_id === key.id)));
  }

  async get(organizationId: string, keyId: string): Promise<ServiceKeyDto> {
    const key = await this.findKey(this.dataSource.manager, organizationId, keyId);
    return keyView(key, await this.tokenRows(this.dataSource.manager, key.id));
  }

  async listTokens(organizationId: string, keyId: string): Promise<ProjectTokenDto[]> {
    const key = await this.findKey(this.dataSource.manager, organizationId, keyId);
    return (await this.tokenRows(this.dataSource.manager, key.id)).map(tokenView);
  }

  /**
   * Revokes the key and, in the same transaction and with one UPDATE, every token derived from
   * it. Idempotent: a second call changes nothing and answers the first call's `revokedAt`.
   */
  async revoke(organizationId: string, keyId: string, acting: Acting): Promise<RevokedServiceKeyDto> {
    if (!isUuid(keyId)) throw new ServiceKeyNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const updated: { revoked_at: Date }[] = await em.query(
        `WITH revoked AS (
           UPDATE service_keys SET revoked_at = now()
            WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL
            RETURNING revoked_at)
         SELECT revoked_at FROM revoked`,
        [keyId, organizationId],
      );
      if (updated.length === 0) {
        const key = await this.findKey(em, organizationId, keyId);
        return { id: key.id, status: 'revoked', revokedAt: key.revokedAt!, revokedTokens: 0 };
      }
      const revokedAt = updated[0].revoked_at;
      const [{ count }]: { count: number }[] = await em.query(
        `WITH revoked AS (
           UPDATE agent_tokens SET revoked_at = now()
            WHERE service_key_id = $1 AND revoked_at IS NULL
            RETURNING 1)
         SELECT count(*)::int AS count FROM revoked`,
        [keyId],
      );
      await this.audit.record(em, {
        organizationId,
        ...actorOf(acting.principal),
        action: 'service_key.revoked',
        targetType: 'service_key',
        targetId: keyId,
        metadata: { revokedTokens: count },
        origin: acting.origin,
      });
      return { id: keyId, status: 'revoked', revokedAt, revokedTokens: count };
    });
  }

  /**
   * Derives a `dga_` token for one project. The key row is share-locked, so a concurrent revoke
   * either waits for this token (and revokes it too) or makes this call fail with 409. One active
   * token per (key, project) is the database's unique partial index, not a read-then-write.
   */
  async deriveToken(organizationId: string, keyId: string, projectId: string, acting: Acting): Promise<DerivedProjectTokenDto> {
    if (!isUuid(keyId)) throw new ServiceKeyNotFoundError();
    if (!isUuid(projectId)) throw new ProjectNotFoundError();
    const token = generateToken(TOKEN_PREFIXES.agentAccess);
    try {
      return await this.dataSource.transaction(async (em) => {
        const keys: { permissions: AgentPermission[]; revoked_at: Date | null }[] = await em.query(
          `SELECT permissions, revoked_at FROM service_keys WHERE id = $1 AND organization_id = $2 FOR SHARE`,
          [keyId, organizationId],
        );
        if (keys.length === 0) throw new ServiceKeyNotFoundError();
        if (keys[0].revoked_at) throw new ServiceKeyRevokedError();
        if (!(await this.projects.find(organizationId, projectId, em, { lock: 'share' }))) throw new ProjectNotFoundError();
        const permissions = keys[0].permissions;
        const [row]: { id: string; created_at: Date }[] = await em.query(
          `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, service_key_id)
           VALUES ($1, 'service_key', $2, $3, $4, $5)
           RETURNING id, created_at`,
          [hashToken(token), organizationId, projectId, permissions, keyId],
        );
        await this.audit.record(em, {
          organizationId,
          projectId,
          ...actorOf(acting.principal),
          action: 'project_token.derived',
          targetType: 'agent_token',
          targetId: row.id,
          metadata: { serviceKeyId: keyId, permissions },
          origin: acting.origin,
        });
        return { id: row.id, token, projectId, serviceKeyId: keyId, permissions, createdAt: row.created_at };
      });
    } catch (error) {
      if (isPgError(error, PG_UNIQUE_VIOLATION, 'agent_tokens_one_active_per_key_project')) {
        throw new ProjectTokenExistsError();
      }
      throw error;
    }
  }

  /** Revokes one derived token. Idempotent: a second call answers the first call's `revokedAt`. */
  async revokeToken(organizationId: string, keyId: string, tokenId: string, acting: Acting): Promise<RevokedProjectTokenDto> {
    if (!isUuid(keyId) || !isUuid(tokenId)) throw new ProjectTokenNotFoundError();
    return this.dataSource.transaction(async (em) => {
      const updated: { project_id: string; revoked_at: Date }[] = await em.query(
        `WITH revoked AS (
           UPDATE agent_tokens SET revoked_at = now()
            WHERE id = $1 AND service_key_id = $2 AND organization_id = $3 AND revoked_at IS NULL
            RETURNING project_id, revoked_at)
         SELECT project_id, revoked_at FROM revoked`,
        [tokenId, keyId, organizationId],
      );
      if (updated.length === 0) {
        const existing: { revoked_at: Date }[] = await em.query(
          `SELECT revoked_at FROM agent_tokens WHERE id = $1 AND service_key_id = $2 AND organization_id = $3`,
          [tokenId, keyId, organizationId],
        );
        if (existing.length === 0) throw new ProjectTokenNotFoundError();
        return { id: tokenId, status: 'revoked', revokedAt: existing[0].revoked_at };
      }
      await this.audit.record(em, {
        organizationId,
        projectId: updated[0].project_id,
        ...actorOf(acting.principal),
        action: 'project_token.revoked',
        targetType: 'agent_token',
        targetId: tokenId,
        metadata: { serviceKeyId: keyId },
        origin: acting.origin,
      });
      return { id: tokenId, status: 'revoked', revokedAt: updated[0].revoked_at };
    });
  }

  private async findKey(em: EntityManager, organizationId: string, keyId: string): Promise<ServiceKey> {
    if (!isUuid(keyId)) throw new ServiceKeyNotFoundError();
    const key = await em.getRepository(ServiceKey).findOne({ where: { id: keyId, organizationId } });
    if (!key) throw new ServiceKeyNotFoundError();
    return key;
  }

  private tokenRows(em: EntityManager, keyId: string): Promise<TokenRow[]> {
    return em.query(`SELECT ${TOKEN_COLUMNS} FROM agent_tokens WHERE service_key_id = $1 ORDER BY created_at, id`, [keyId]);
  }
}

/** The catalogue's order, without duplicates. */
function normalisePermissions(permissions: readonly AgentPermission[]): AgentPermission[] {
  return AGENT_PERMISSION_NAMES.filter((p) => permissions.includes(p));
}

function tokenView(row: TokenRow): ProjectTokenDto {
  return {
    id: row.id,
    serviceKeyId: row.service_key_id,
    projectId: row.project_id,
    permissions: row.permissions,
    status: row.revoked_at ? 'revoked' : 'active',
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

function keyView(key: ServiceKey, tokens: TokenRow[]): ServiceKeyDto {
  return {
    id: key.id,
    name: key.name,
    permissions: key.permissions,
    status: key.revokedAt ? 'revoked' : 'active',
    createdAt: key.createdAt,
    revokedAt: key.revokedAt,
    tokens: tokens.map(tokenView),
  };
}
