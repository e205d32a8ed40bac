import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { deleteInBatches, isPgError, PG_UNIQUE_VIOLATION, queryAffected, queryReturning, readStatement, statement, statementIn } from '@app/database';
import { AgentToken } from '../entities/agent-token.entity';
import type { AgentPermission } from '@app/capabilities';

/** What a new agent token is made of; the secret itself never reaches the database. */
export interface NewAgentToken {
  tokenHash: string;
  source: AgentToken['source'];
  organizationId: string;
  projectId: string;
  permissions: AgentPermission[];
  serviceKeyId?: string | null;
  grantId?: string | null;
  clientId?: string | null;
  userId?: string | null;
  /** Lifetime from now, by the database's clock; none for derived project tokens. */
  ttlSeconds?: number | null;
  /** A derived token's chosen expiry (refused from then on, like a revoked one). */
  validUntil?: Date | null;
  /** The secret's last four characters (derived tokens), shown in lists. */
  secretLast4?: string | null;
}

/**
 * The `agent_tokens` table (`dga_`: OAuth access tokens and derived project tokens). The only
 * code that reads or writes it. Revocations that cascade (grant, service key, member, project)
 * are `CredentialRevoker`'s, built on the `revoke…` statements here.
 */
/**
 * Which rule of one (service key, project) a failed insert or rotation broke: a second active
 * token (`active`), or a second one rotating out (`rotating`); null for any other error.
 */
export function derivedTokenConflict(error: unknown): 'active' | 'rotating' | null {
  if (isPgError(error, PG_UNIQUE_VIOLATION, 'agent_tokens_one_active_per_key_project')) return 'active';
  if (isPgError(error, PG_UNIQUE_VIOLATION, 'agent_tokens_one_rotating_per_key_project')) return 'rotating';
  return null;
}

/**
 * What a request needs of its live token (everything but the digest and the lifecycle times),
 * and the version of its organisation's policy (0: none), read in the same statement.
 */
export type LiveAgentToken = Omit<AgentToken, 'tokenHash' | 'createdAt' | 'revokedAt' | 'secretLast4' | 'validUntil'> & {
  policyVersion: number;
  /** The service key's name (a project token), for the audit records' actor. */
  serviceKeyName: string | null;
  /** The person's email (a token of an OAuth grant), for the audit records' actor. */
  userEmail: string | null;
};

interface LiveAgentTokenRow {
  id: string;
  source: AgentToken['source'];
  organization_id: string;
  project_id: string;
  permissions: AgentPermission[];
  service_key_id: string | null;
  grant_id: string | null;
  client_id: string | null;
  user_id: string | null;
  expires_at: Date | null;
  last_used_at: Date | null;
  policy_version: number;
  service_key_name: string | null;
  user_email: string | null;
}

const FIND_LIVE_BY_HASH = statement(
  'agent_tokens.find_live_by_hash',
  `SELECT id, source, organization_id, project_id, permissions, service_key_id, grant_id, client_id, user_id,
    LEAST(expires_at, valid_until) AS expires_at, last_used_at,
    -- The policy library's published read of its table (docs/policy.md): no extra round trip per call.
    organization_policy_version(organization_id) AS policy_version,
    (SELECT name FROM service_keys WHERE service_keys.id = agent_tokens.service_key_id) AS service_key_name,
    -- The tenancy library's published read of users (the audit records' actor).
    person_email(user_id) AS user_email
  FROM "agent_tokens"
  WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
    AND (valid_until IS NULL OR valid_until > now())`,
);

const INSERT = statement(
  'agent_tokens.insert',
  `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, service_key_id, grant_id, client_id, user_id, expires_at, valid_until, secret_last4)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10::int), $11, $12)
   RETURNING id, created_at`,
);

@Injectable()
export class AgentTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The request's hot path: one indexed lookup by digest; revoked and expired tokens are not
   * found. A named statement, prepared once per connection on PostgreSQL (`readStatement`).
   */
  async findLiveByHash(tokenHash: string): Promise<LiveAgentToken | null> {
    const rows = await readStatement<LiveAgentTokenRow>(this.dataSource, FIND_LIVE_BY_HASH, [tokenHash]);
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      source: row.source,
      organizationId: row.organization_id,
      projectId: row.project_id,
      permissions: row.permissions,
      serviceKeyId: row.service_key_id,
      grantId: row.grant_id,
      clientId: row.client_id,
      userId: row.user_id,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
      policyVersion: row.policy_version,
      serviceKeyName: row.service_key_name,
      userEmail: row.user_email,
    };
  }

  /** Stores a token; a second live token of one service key for one project fails on the unique index. */
  async insert(em: EntityManager, token: NewAgentToken): Promise<{ id: string; createdAt: Date }> {
    const ttl = token.ttlSeconds == null ? null : Math.trunc(token.ttlSeconds);
    // A null lifetime makes `now() + make_interval(…)` null: no expiry.
    const [row] = await statementIn<{ id: string; created_at: Date }>(em, INSERT, [
      token.tokenHash,
      token.source,
      token.organizationId,
      token.projectId,
      token.permissions,
      token.serviceKeyId ?? null,
      token.grantId ?? null,
      token.clientId ?? null,
      token.userId ?? null,
      ttl,
      token.validUntil ?? null,
      token.secretLast4 ?? null,
    ]);
    return { id: row.id, createdAt: row.created_at };
  }

  /** The project tokens derived from the given service keys, oldest first. */
  listForServiceKeys(em: EntityManager, serviceKeyIds: string[]): Promise<AgentToken[]> {
    if (serviceKeyIds.length === 0) return Promise.resolve([]);
    return em.getRepository(AgentToken).find({
      where: { serviceKeyId: In(serviceKeyIds) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** A page of the tokens derived from one key, oldest first, after the token `afterId` when given (keyset over `(created_at, id)`). */
  pageForServiceKey(em: EntityManager, serviceKeyId: string, limit: number, afterId?: string): Promise<AgentToken[]> {
    const query = em.getRepository(AgentToken).createQueryBuilder('t').where('t.service_key_id = :serviceKeyId', { serviceKeyId });
    if (afterId) {
      query.andWhere(
        '(t.created_at, t.id) > (SELECT a.created_at, a.id FROM agent_tokens a WHERE a.id = :afterId AND a.service_key_id = :serviceKeyId)',
        { afterId },
      );
    }
    return query.orderBy('t.createdAt', 'ASC').addOrderBy('t.id', 'ASC').limit(limit).getMany();
  }

  /** Whether the token is neither revoked nor past its expiry or its rotation's end (an approval of its calls lives only as long). */
  async isLive(tokenId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM agent_tokens WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AND (valid_until IS NULL OR valid_until > now())`,
      [tokenId],
    );
    return rows.length > 0;
  }

  findDerived(em: EntityManager, organizationId: string, serviceKeyId: string, tokenId: string): Promise<AgentToken | null> {
    return em.getRepository(AgentToken).findOne({ where: { id: tokenId, serviceKeyId, organizationId } });
  }

  /** Conditional: null when the token is unknown or was already revoked. */
  /**
   * Revokes one derived token and, when it is the active token of its (key, project), the token
   * it replaced that is still rotating out: the one rotated away from is no safer than the new
   * one (the same machine held both), so revoking the new secret must not leave the old one
   * working until its overlap ends. Revoking the token rotating out ends only that one (the
   * overlap ended early). One statement: the target row is locked first, so a rotation of it
   * running at the same moment either commits before (and its new token stays, the old one is
   * the target) or waits.
   */
  async revokeDerived(
    em: EntityManager,
    organizationId: string,
    serviceKeyId: string,
    tokenId: string,
  ): Promise<{ projectId: string; revokedAt: Date; alsoRevoked: string[] } | null> {
    const rows = await queryReturning<{ id: string; project_id: string; revoked_at: Date }>(
      em,
      `WITH target AS (
         SELECT id, project_id, expires_at FROM agent_tokens
          WHERE id = $1 AND service_key_id = $2 AND organization_id = $3 AND revoked_at IS NULL
          FOR UPDATE
       )
       UPDATE agent_tokens a SET revoked_at = now()
         FROM target
        WHERE a.revoked_at IS NULL
          AND (a.id = target.id
               OR (target.expires_at IS NULL AND a.service_key_id = $2 AND a.project_id = target.project_id AND a.expires_at IS NOT NULL))
        RETURNING a.id, a.project_id, a.revoked_at`,
      [tokenId, serviceKeyId, organizationId],
    );
    const row = rows.find((r) => r.id === tokenId);
    return row ? { projectId: row.project_id, revokedAt: row.revoked_at, alsoRevoked: rows.filter((r) => r.id !== tokenId).map((r) => r.id) } : null;
  }

  /**
   * A derived token whose overlap has ended, or whose chosen expiry has passed, is refused by the
   * lookup already; this marks it revoked (when it ended) so it frees the (key, project)'s slot.
   */
  retireEndedRotation(em: EntityManager, serviceKeyId: string, projectId: string): Promise<number> {
    return queryAffected(
      em,
      `UPDATE agent_tokens SET revoked_at = LEAST(coalesce(expires_at, 'infinity'::timestamptz), coalesce(valid_until, 'infinity'::timestamptz))
        WHERE service_key_id = $1 AND project_id = $2 AND revoked_at IS NULL
          AND ((expires_at IS NOT NULL AND expires_at <= now()) OR (valid_until IS NOT NULL AND valid_until <= now()))`,
      [serviceKeyId, projectId],
    );
  }

  /** The derived token of (key, project) still rotating out, if any. */
  findRotatingOut(em: EntityManager, serviceKeyId: string, projectId: string): Promise<AgentToken | null> {
    return em
      .getRepository(AgentToken)
      .createQueryBuilder('t')
      .where('t.serviceKeyId = :serviceKeyId AND t.projectId = :projectId', { serviceKeyId, projectId })
      .andWhere('t.revokedAt IS NULL AND t.expiresAt > now()')
      .getOne();
  }

  /**
   * Conditional: starts the overlap of an active derived token (it keeps working until
   * now + `overlapSeconds`, by the database's clock). Null when the token is unknown, revoked
   * or already rotating out. A concurrent second rotation waits for this row and then finds it
   * no longer active; a second token rotating out of the same (key, project) breaks the unique
   * index `agent_tokens_one_rotating_per_key_project`.
   */
  async startRotation(
    em: EntityManager,
    organizationId: string,
    serviceKeyId: string,
    tokenId: string,
    overlapSeconds: number,
  ): Promise<{ projectId: string; permissions: AgentPermission[]; expiresAt: Date; validUntil: Date | null } | null> {
    const [row] = await queryReturning<{ project_id: string; permissions: AgentPermission[]; expires_at: Date; valid_until: Date | null }>(
      em,
      `UPDATE agent_tokens SET expires_at = now() + make_interval(secs => $4)
        WHERE id = $1 AND service_key_id = $2 AND organization_id = $3 AND revoked_at IS NULL AND expires_at IS NULL
          AND (valid_until IS NULL OR valid_until > now())
        RETURNING project_id, permissions, expires_at, valid_until`,
      [tokenId, serviceKeyId, organizationId, Math.trunc(overlapSeconds)],
    );
    return row ? { projectId: row.project_id, permissions: row.permissions, expiresAt: row.expires_at, validUntil: row.valid_until } : null;
  }

  /** RFC 7009 for an access token: only an OAuth token, and only the named client's when one is named. */
  /** The client of a live OAuth access token, for a revocation to check who may end it. */
  async oauthClientOf(tokenHash: string): Promise<string | null> {
    const token = await this.dataSource.getRepository(AgentToken).findOne({
      select: { clientId: true },
      where: { tokenHash, source: 'oauth', revokedAt: IsNull() },
    });
    return token?.clientId ?? null;
  }

  revokeOAuthTokenByHash(tokenHash: string, clientId: string | null): Promise<number> {
    return queryAffected(
      this.dataSource,
      `UPDATE agent_tokens SET revoked_at = now()
        WHERE token_hash = $1 AND source = 'oauth' AND revoked_at IS NULL AND ($2::text IS NULL OR client_id = $2)`,
      [tokenHash, clientId],
    );
  }

  /** Every live token of the key: the active ones and those still rotating out. */
  revokeForServiceKey(em: EntityManager, serviceKeyId: string): Promise<number> {
    return this.revokeWhere(em, 'service_key_id = $1 AND (expires_at IS NULL OR expires_at > now())', [serviceKeyId]);
  }

  /** How many access tokens of the grant still work (what disconnecting its client ends). */
  countLiveForGrant(grantId: string): Promise<number> {
    return this.dataSource
      .getRepository(AgentToken)
      .createQueryBuilder('t')
      .where('t.grantId = :grantId AND t.revokedAt IS NULL', { grantId })
      .andWhere('(t.expiresAt IS NULL OR t.expiresAt > now())')
      .getCount();
  }

  revokeForGrant(em: EntityManager, grantId: string): Promise<number> {
    return this.revokeWhere(em, 'grant_id = $1', [grantId]);
  }

  revokeForMember(em: EntityManager, organizationId: string, userId: string): Promise<number> {
    return this.revokeWhere(em, 'user_id = $1 AND organization_id = $2', [userId, organizationId]);
  }

  /** The live project tokens derived from these service keys. */
  async liveDerivedFrom(em: EntityManager, serviceKeyIds: string[]): Promise<{ id: string; serviceKeyId: string; projectId: string }[]> {
    if (!serviceKeyIds.length) return [];
    const rows = await em.getRepository(AgentToken).find({
      where: { serviceKeyId: In(serviceKeyIds), revokedAt: IsNull() },
      select: { id: true, serviceKeyId: true, projectId: true, createdAt: true, expiresAt: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    const now = Date.now();
    return rows.filter((r) => !r.expiresAt || r.expiresAt.getTime() > now).map((r) => ({ id: r.id, serviceKeyId: r.serviceKeyId!, projectId: r.projectId }));
  }

  /** How many project tokens derived from service keys are live on the project (active or still rotating out). */
  countLiveDerivedForProject(projectId: string): Promise<number> {
    return this.dataSource
      .getRepository(AgentToken)
      .createQueryBuilder('t')
      .where("t.projectId = :projectId AND t.source = 'service_key' AND t.revokedAt IS NULL", { projectId })
      .andWhere('(t.expiresAt IS NULL OR t.expiresAt > now())')
      .getCount();
  }

  revokeForProject(em: EntityManager, projectId: string): Promise<number> {
    return this.revokeWhere(em, 'project_id = $1', [projectId]);
  }

  /**
   * Deletes OAuth access tokens nothing reads again: expired `retentionSeconds` ago and
   * superseded by a newer token of the same grant issued after their last use (so the grant's
   * "last used" does not change), or of a grant revoked `retentionSeconds` ago.
   */
  deleteSpentOAuthTokens(retentionSeconds: number): Promise<number> {
    return deleteInBatches(
      this.dataSource,
      'agent_tokens',
      'id',
      `source = 'oauth' AND (
         grant_id IN (SELECT id FROM oauth_grants WHERE revoked_at < now() - make_interval(secs => $1))
         OR (expires_at < now() - make_interval(secs => $1)
             AND EXISTS (SELECT 1 FROM agent_tokens n
                          WHERE n.grant_id = agent_tokens.grant_id
                            AND n.created_at > coalesce(agent_tokens.last_used_at, agent_tokens.created_at))))`,
      [retentionSeconds],
    );
  }

  /** Writes batched `last_used_at` values in one statement; a stored later use is kept. */
  async recordUses(uses: Map<string, Date>): Promise<void> {
    const ids = [...uses.keys()];
    await this.dataSource.query(
      `UPDATE agent_tokens AS t SET last_used_at = u.used_at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
        WHERE t.id = u.id AND (t.last_used_at IS NULL OR t.last_used_at < u.used_at)`,
      [ids, ids.map((id) => uses.get(id)!.toISOString())],
    );
  }

  private revokeWhere(em: EntityManager, where: string, params: unknown[]): Promise<number> {
    return queryAffected(em, `UPDATE agent_tokens SET revoked_at = now() WHERE ${where} AND revoked_at IS NULL`, params);
  }
}
