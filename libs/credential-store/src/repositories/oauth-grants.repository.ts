import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { KEYSET_SQL, KeysetPosition } from '@app/common';
import { queryReturning, statement, statementIn } from '@app/database';
import { OAuthGrant } from '../entities/oauth-grant.entity';
import type { AgentPermission } from '@app/capabilities';

/** A grant as the connected-clients list shows it (the names of its client and project are their owners'). */
export interface ListedGrant {
  id: string;
  clientId: string;
  projectId: string;
  organizationId: string;
  userId: string;
  permissions: AgentPermission[];
  createdAt: Date;
  lastUsedAt: Date | null;
  /** The identity provider whose ID-JAG made the grant; null for a consent. */
  idJagIssuer: string | null;
}

interface ListedGrantRow {
  id: string;
  client_id: string;
  project_id: string;
  organization_id: string;
  user_id: string;
  permissions: AgentPermission[];
  created_at: Date;
  last_used_at: Date | null;
  id_jag_issuer: string | null;
}

/** The columns of a listed grant: its last use is the latest of its access tokens' (a grant that produced none is not listed). */
const LISTED_COLUMNS = `g.id, g.client_id, g.project_id, g.organization_id, g.user_id, g.permissions, g.created_at, g.id_jag_issuer,
  (SELECT max(greatest(t.last_used_at, t.created_at)) FROM agent_tokens t WHERE t.grant_id = g.id) AS last_used_at`;
const PRODUCED_TOKENS = 'EXISTS (SELECT 1 FROM agent_tokens t WHERE t.grant_id = g.id)';

interface GrantRow {
  id: string;
  user_id: string;
  client_id: string;
  organization_id: string;
  project_id: string;
  permissions: AgentPermission[];
  resource: string | null;
  created_at: Date;
  revoked_at: Date | null;
  id_jag_issuer: string | null;
}

/** A grant that was just ended, for its audit event. */
export type RevokedGrant = Pick<OAuthGrant, 'id' | 'organizationId' | 'projectId' | 'clientId' | 'userId'> & { revokedAt: Date };

const REVOKED_COLUMNS = 'id, organization_id, project_id, client_id, user_id, revoked_at';

const FIND_FOR_UPDATE = statement(
  'oauth_grants.find_for_update',
  'SELECT id, user_id, client_id, organization_id, project_id, permissions, resource, created_at, revoked_at, id_jag_issuer FROM oauth_grants WHERE id = $1 FOR UPDATE',
);

/** The `oauth_grants` table: what a person approved for one client on one project. */
@Injectable()
export class OAuthGrantsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async create(
    em: EntityManager,
    grant: Pick<OAuthGrant, 'userId' | 'clientId' | 'organizationId' | 'projectId' | 'permissions' | 'resource'>,
  ): Promise<string> {
    const result = await em.getRepository(OAuthGrant).insert(grant);
    return (result.identifiers[0] as { id: string }).id;
  }

  /** Whether the person has a grant for this client that is not revoked (they chose to trust it). */
  hasLiveGrant(userId: string, clientId: string): Promise<boolean> {
    return this.dataSource.getRepository(OAuthGrant).existsBy({ userId, clientId, revokedAt: IsNull() });
  }

  /** Whether the grant exists and is not revoked (an approval of its calls lives only as long). */
  isLive(grantId: string): Promise<boolean> {
    return this.dataSource.getRepository(OAuthGrant).existsBy({ id: grantId, revokedAt: IsNull() });
  }

  findOwned(em: EntityManager, userId: string, grantId: string): Promise<OAuthGrant | null> {
    return em.getRepository(OAuthGrant).findOneBy({ id: grantId, userId });
  }

  find(em: EntityManager, grantId: string): Promise<OAuthGrant | null> {
    return em.getRepository(OAuthGrant).findOneBy({ id: grantId });
  }

  /**
   * The grant, locked until the transaction ends. Every change to a grant's tokens (issue,
   * rotate, revoke) takes this lock first, so concurrent requests on one grant queue in one
   * order instead of deadlocking on its token rows.
   */
  async findForUpdate(em: EntityManager, grantId: string): Promise<OAuthGrant | null> {
    const [row] = await statementIn<GrantRow>(em, FIND_FOR_UPDATE, [grantId]);
    if (!row) return null;
    return {
      id: row.id,
      userId: row.user_id,
      clientId: row.client_id,
      organizationId: row.organization_id,
      projectId: row.project_id,
      permissions: row.permissions,
      resource: row.resource,
      createdAt: row.created_at,
      revokedAt: row.revoked_at,
      idJagIssuer: row.id_jag_issuer,
    };
  }

  /**
   * The live grant of an ID-JAG trade for this person, client, project and issuer: created by the
   * first trade, reused by the next ones (its permissions become the latest trade's), in one
   * statement on the partial unique index, so concurrent trades share one grant.
   */
  async upsertIdJagGrant(
    em: EntityManager,
    grant: Pick<OAuthGrant, 'userId' | 'clientId' | 'organizationId' | 'projectId' | 'permissions' | 'resource'> & { idJagIssuer: string },
  ): Promise<string> {
    const [row] = await queryReturning<{ id: string }>(
      em,
      `INSERT INTO oauth_grants (user_id, client_id, organization_id, project_id, permissions, resource, id_jag_issuer)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (user_id, client_id, project_id, id_jag_issuer) WHERE revoked_at IS NULL AND id_jag_issuer IS NOT NULL
       DO UPDATE SET permissions = excluded.permissions
       RETURNING id`,
      [grant.userId, grant.clientId, grant.organizationId, grant.projectId, grant.permissions, grant.resource, grant.idJagIssuer],
    );
    return row.id;
  }

  /** Which of these grants were revoked more than `seconds` ago (for other tables' cleanups). */
  async revokedLongerAgoThan(grantIds: readonly string[], seconds: number): Promise<string[]> {
    if (grantIds.length === 0) return [];
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM oauth_grants WHERE id = ANY($1) AND revoked_at < now() - make_interval(secs => $2)`,
      [grantIds, seconds],
    );
    return rows.map((r) => r.id);
  }

  /** Which of these clients have a grant, live or revoked (for the OAuth server's cleanup of unused registrations). */
  async clientsWithGrants(clientIds: readonly string[]): Promise<Set<string>> {
    if (clientIds.length === 0) return new Set();
    const rows: { client_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT client_id FROM oauth_grants WHERE client_id = ANY($1)`,
      [clientIds],
    );
    return new Set(rows.map((r) => r.client_id));
  }

  /** The person's live grants that produced tokens, newest first, with their last use. */
  async listLiveForUser(userId: string): Promise<ListedGrant[]> {
    const rows: ListedGrantRow[] = await this.dataSource.query(
      `SELECT ${LISTED_COLUMNS}
         FROM oauth_grants g
        WHERE g.user_id = $1 AND g.revoked_at IS NULL AND ${PRODUCED_TOKENS}
        ORDER BY g.created_at DESC, g.id`,
      [userId],
    );
    return rows.map(toListedGrant);
  }

  /**
   * Up to `limit` live grants of an organisation that produced tokens (only one person's when
   * `userId` is given), newest first, after a keyset position; each with its exact position.
   */
  async pageLiveForOrganization(
    organizationId: string,
    options: { userId?: string; limit: number; after?: KeysetPosition },
  ): Promise<(ListedGrant & { position: KeysetPosition })[]> {
    const params: unknown[] = [organizationId, options.limit];
    let where = '';
    if (options.userId) {
      params.push(options.userId);
      where += ` AND g.user_id = $${params.length}`;
    }
    if (options.after) {
      params.push(options.after.us, options.after.id);
      where += ` AND ${KEYSET_SQL.after('g', `$${params.length - 1}`, `$${params.length}`)}`;
    }
    const rows: (ListedGrantRow & { created_us: string })[] = await this.dataSource.query(
      `SELECT ${LISTED_COLUMNS}, ${KEYSET_SQL.createdUs('g')} AS created_us
         FROM oauth_grants g
        WHERE g.organization_id = $1 AND g.revoked_at IS NULL AND ${PRODUCED_TOKENS}${where}
        ORDER BY g.created_at DESC, g.id DESC
        LIMIT $2`,
      params,
    );
    return rows.map((r) => ({ ...toListedGrant(r), position: { us: r.created_us, id: r.id } }));
  }

  /** A grant of the organisation, or null (another organisation's is not found). */
  findInOrganization(em: EntityManager, organizationId: string, grantId: string): Promise<OAuthGrant | null> {
    return em.getRepository(OAuthGrant).findOneBy({ id: grantId, organizationId });
  }

  /** Conditional: the grants that were live and are now revoked. */
  revokeOne(em: EntityManager, grantId: string): Promise<RevokedGrant[]> {
    return this.revokeWhere(em, 'id = $1', [grantId]);
  }

  revokeForMember(em: EntityManager, organizationId: string, userId: string): Promise<RevokedGrant[]> {
    return this.revokeWhere(em, 'user_id = $1 AND organization_id = $2', [userId, organizationId]);
  }

  /** How many live grants a person holds in an organisation (what `revokeForMember` would end). */
  countLiveForMember(em: EntityManager, organizationId: string, userId: string): Promise<number> {
    return em.getRepository(OAuthGrant).countBy({ organizationId, userId, revokedAt: IsNull() });
  }

  revokeForProject(em: EntityManager, projectId: string): Promise<RevokedGrant[]> {
    return this.revokeWhere(em, 'project_id = $1', [projectId]);
  }

  /** How many clients are connected to the project: its live grants that produced tokens (as the connected-clients lists count them). */
  countConnectedToProject(projectId: string): Promise<number> {
    return this.dataSource
      .getRepository(OAuthGrant)
      .createQueryBuilder('g')
      .where('g.projectId = :projectId AND g.revokedAt IS NULL', { projectId })
      .andWhere('EXISTS (SELECT 1 FROM agent_tokens t WHERE t.grant_id = g.id)')
      .getCount();
  }

  /** The clients that hold live grants in an organisation. */
  async liveClientIds(em: EntityManager, organizationId: string): Promise<string[]> {
    const rows = await em
      .getRepository(OAuthGrant)
      .createQueryBuilder('g')
      .select('DISTINCT g.client_id', 'client_id')
      .where('g.organization_id = :organizationId AND g.revoked_at IS NULL', { organizationId })
      .getRawMany<{ client_id: string }>();
    return rows.map((r) => r.client_id);
  }

  /** How many live grants each client holds in an organisation. */
  async liveCountsByClient(organizationId: string): Promise<Map<string, number>> {
    const rows = await this.dataSource
      .getRepository(OAuthGrant)
      .createQueryBuilder('g')
      .select('g.client_id', 'client_id')
      .addSelect('count(*)::int', 'grants')
      .where('g.organization_id = :organizationId AND g.revoked_at IS NULL', { organizationId })
      .groupBy('g.client_id')
      .getRawMany<{ client_id: string; grants: number }>();
    return new Map(rows.map((r) => [r.client_id, Number(r.grants)]));
  }

  revokeForOrganizationClients(em: EntityManager, organizationId: string, clientIds: string[]): Promise<RevokedGrant[]> {
    return this.revokeWhere(em, 'organization_id = $1 AND client_id = ANY($2)', [organizationId, clientIds]);
  }

  /**
   * The organisation's ID-JAG grants that its identity-provider settings no longer back: every one
   * whose (issuer, client, project) is not among `kept` (none kept: every ID-JAG grant). One
   * conditional update; consent grants (no `id_jag_issuer`) are never touched.
   */
  revokeIdJagGrantsExcept(em: EntityManager, organizationId: string, kept: readonly { issuer: string; clientId: string; projectId: string }[]): Promise<RevokedGrant[]> {
    return this.revokeWhere(
      em,
      `organization_id = $1 AND id_jag_issuer IS NOT NULL AND NOT EXISTS (
         SELECT 1 FROM jsonb_to_recordset($2::jsonb) AS k(issuer text, "clientId" text, "projectId" uuid)
         WHERE k.issuer = oauth_grants.id_jag_issuer AND k."clientId" = oauth_grants.client_id AND k."projectId" = oauth_grants.project_id)`,
      [organizationId, JSON.stringify(kept)],
    );
  }

  /** Whether the person ever approved this client (any grant, live or not). */
  async existsForUserAndClient(userId: string, clientId: string): Promise<boolean> {
    return this.dataSource.getRepository(OAuthGrant).existsBy({ userId, clientId });
  }

  private async revokeWhere(em: EntityManager, where: string, params: unknown[]): Promise<RevokedGrant[]> {
    const rows = await queryReturning<{
      id: string;
      organization_id: string;
      project_id: string;
      client_id: string;
      user_id: string;
      revoked_at: Date;
    }>(em, `UPDATE oauth_grants SET revoked_at = now() WHERE ${where} AND revoked_at IS NULL RETURNING ${REVOKED_COLUMNS}`, params);
    return rows.map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      projectId: r.project_id,
      clientId: r.client_id,
      userId: r.user_id,
      revokedAt: r.revoked_at,
    }));
  }
}

function toListedGrant(r: ListedGrantRow): ListedGrant {
  return {
    id: r.id,
    clientId: r.client_id,
    projectId: r.project_id,
    organizationId: r.organization_id,
    userId: r.user_id,
    permissions: r.permissions,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    idJagIssuer: r.id_jag_issuer,
  };
}
