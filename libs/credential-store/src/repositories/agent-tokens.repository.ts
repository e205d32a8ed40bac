import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { deleteInBatches, isPgError, PG_UNIQUE_VIOLATION, queryAffected, readStatement, statement, statementIn } from '@app/database';
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
