import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AuditActor } from '@app/audit';
import { decodeKeysetCursor, encodeKeysetCursor, DomainError, keysetPage, NotFoundError, PAGE_SIZE_DEFAULT } from '@app/common';
import { AgentPermission } from '@app/capabilities';
import { OAuthAccessTokenStore, CredentialRevoker, GrantRevocationResult, ListedGrant, OAuthGrantStore } from '@app/credential-store';
import { requireUser, SessionPrincipal, SessionReach, SessionReachRefusal, userOf } from '@app/people';
import { isUuid } from '@app/database';
import { ProjectDirectory, UserDirectory } from '@app/tenancy';
import { clientHosts, metadataDocumentHost } from './redirect-uri';
import { OAuthClientsRepository } from './store/oauth-clients.repository';

export interface AgentGrantView {
  id: string;
  client: { id: string; name: string };
  project: { id: string; name: string };
  organization: { id: string; name: string };
  permissions: AgentPermission[];
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Present when the client traded an ID-JAG of this identity provider instead of asking for consent. */
  identityProvider?: { issuer: string };
}

/** A connected client as its organisation sees it: which client (and the host it answers to), where, who consented. */
export interface OrganizationGrantView {
  id: string;
  client: {
    id: string;
    name: string;
    /** `metadata_document`: identified by its `client_id` URL; `registered`: by dynamic registration. */
    kind: 'metadata_document' | 'registered';
    /** The host of its `client_id` URL, or the hosts (or private-use schemes) of its redirect URIs. */
    hosts: string[];
  };
  project: { id: string; name: string };
  /** The person who consented (null if their account is gone). */
  user: { id: string; name: string; email: string } | null;
  permissions: AgentPermission[];
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Present when the client traded an ID-JAG of this identity provider instead of asking for consent. */
  identityProvider?: { issuer: string };
}

/** Who asks to disconnect a client: a person may end their own grants; an admin any of the organisation. */
export interface GrantViewer {
  userId: string;
  mayManageAll: boolean;
}

/**
 * The connected clients: grants (what a person approved for one client on one project), listed
 * and revoked, by the person (`/api/me/agent-grants`) or within an organisation (its admins see
 * and end every grant, a member their own). Revoking a grant (`CredentialRevoker.revokeGrant`)
 * ends its refresh tokens and access tokens in the same transaction; a new consent never ends
 * the person's other grants.
 */
@Injectable()
export class OAuthGrantsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly grants: OAuthGrantStore,
    private readonly clients: OAuthClientsRepository,
    private readonly revoker: CredentialRevoker,
    private readonly projects: ProjectDirectory,
    private readonly users: UserDirectory,
    private readonly tokens: OAuthAccessTokenStore,
    private readonly reach: SessionReach,
  ) {}

  /** The session's person's live grants that produced tokens, newest first, in the organisations this session opens (`SessionReach`). */
  async listForUser(session: SessionPrincipal): Promise<AgentGrantView[]> {
    const grants = await this.grants.listLiveForUser(session.userId);
    const [names, projects, reached] = await Promise.all([
      this.clients.namesOf(grants.map((g) => g.clientId)),
      this.projects.namesOf(grants.map((g) => g.projectId)),
      this.reach.sort(session, [...new Set(grants.map((g) => g.organizationId))].map((id) => ({ id }))),
    ]);
    const open = new Set(reached.open.map((o) => o.id));
    // A deleted project's grants were revoked with it; one deleted meanwhile is left out.
    return grants
      .filter((g) => names.has(g.clientId) && projects.has(g.projectId) && open.has(g.organizationId))
      .map((g) => ({
        id: g.id,
        client: { id: g.clientId, name: names.get(g.clientId)! },
        project: { id: g.projectId, name: projects.get(g.projectId)!.name },
        organization: projects.get(g.projectId)!.organization,
        permissions: g.permissions,
        createdAt: g.createdAt,
        lastUsedAt: g.lastUsedAt,
        ...viaIdentityProvider(g.idJagIssuer),
      }));
  }

  /**
   * The organisation's live grants that produced tokens (only `userId`'s when given), newest
   * first, a page at a time (keyset: `nextCursor` continues).
   */
  async listForOrganization(
    organizationId: string,
    options: { userId?: string; limit?: number; cursor?: string } = {},
  ): Promise<{ items: OrganizationGrantView[]; nextCursor: string | null }> {
    const limit = options.limit ?? PAGE_SIZE_DEFAULT;
    const after = options.cursor === undefined ? undefined : decodeKeysetCursor(options.cursor);
    if (options.userId !== undefined && !isUuid(options.userId)) return { items: [], nextCursor: null };
    const rows = await this.grants.pageLiveForOrganization(organizationId, { userId: options.userId, limit: limit + 1, after });
    const page = keysetPage(rows, limit, (last) => encodeKeysetCursor(last.position));
    return { items: await this.describe(page.items), nextCursor: page.nextCursor };
  }

  /** One live grant of the organisation, with how many access tokens disconnecting it ends (for the confirmation). */
  async findInOrganization(organizationId: string, grantId: string, viewer: GrantViewer): Promise<OrganizationGrantView & { liveAccessTokens: number }> {
    const grant = await this.ownGrantOrRefuse(organizationId, grantId, viewer);
    const [view] = await this.describe([{ ...grant, lastUsedAt: null, idJagIssuer: grant.idJagIssuer }]);
    if (!view || grant.revokedAt) throw new NotFoundError('Connected client');
    return { ...view, liveAccessTokens: await this.tokens.countLiveForGrant(grant.id) };
  }

  /** The names AI clients registered with, by client id (for lists and the audit log). */
  clientNamesOf(clientIds: readonly string[]): Promise<Map<string, string>> {
    return this.clients.namesOf([...clientIds]);
  }

  /**
   * The person acting revokes one of their own grants; another person's grant is "not found".
   * Idempotent. A grant in an organisation the session does not open is refused (`SessionReachError`).
   */
  async revokeForUser(grantId: string, actor: AuditActor, session: SessionPrincipal): Promise<GrantRevocationResult> {
    const userId = userOf(actor);
    if (!userId || !isUuid(grantId)) throw new NotFoundError('Grant');
    const outcome = await this.dataSource.transaction(async (em): Promise<GrantRevocationResult | { closed: SessionReachRefusal }> => {
      const owned = await this.grants.findOwned(em, userId, grantId);
      if (!owned) throw new NotFoundError('Grant');
      const closed = await this.reach.refusalIn(session, owned.organizationId, em);
      if (closed) return { closed };
      if (owned.revokedAt) return { id: grantId, status: 'revoked' as const, revokedAt: owned.revokedAt, revokedTokens: 0 };
      const result = await this.revoker.revokeGrant(em, grantId, 'revoked_by_user', actor);
      return result ?? { id: grantId, status: 'revoked' as const, revokedAt: new Date(), revokedTokens: 0 };
    });
    if ('closed' in outcome) throw await this.reach.refusalError(session, outcome.closed);
    return outcome;
  }

  /**
   * Disconnects a client within an organisation: the person's own grant, or (for an admin) any
   * grant of the organisation; another organisation's grant is "not found", another person's
   * grant refused to a member (403). Idempotent; the client's tokens are refused at once.
   */
  async revokeInOrganization(
    organizationId: string,
    grantId: string,
    scope: { mayManageAll: boolean },
    actor: AuditActor,
  ): Promise<GrantRevocationResult> {
    const userId = requireUser(actor);
    await this.ownGrantOrRefuse(organizationId, grantId, { userId, mayManageAll: scope.mayManageAll });
    return this.dataSource.transaction(async (em) => {
      const grant = await this.grants.findInOrganization(em, organizationId, grantId);
      if (!grant) throw new NotFoundError('Grant');
      if (grant.revokedAt) return { id: grantId, status: 'revoked' as const, revokedAt: grant.revokedAt, revokedTokens: 0 };
      const reason = grant.userId === userId ? 'revoked_by_user' : 'revoked_by_admin';
      const result = await this.revoker.revokeGrant(em, grantId, reason, actor);
      return result ?? { id: grantId, status: 'revoked' as const, revokedAt: new Date(), revokedTokens: 0 };
    });
  }

  private async ownGrantOrRefuse(organizationId: string, grantId: string, viewer: GrantViewer) {
    if (!isUuid(grantId)) throw new NotFoundError('Grant');
    const grant = await this.grants.findInOrganization(this.dataSource.manager, organizationId, grantId);
    if (!grant) throw new NotFoundError('Grant');
    if (!viewer.mayManageAll && grant.userId !== viewer.userId) {
      throw new DomainError('not_your_grant', "Only an administrator may disconnect another person's client", 'forbidden');
    }
    return grant;
  }

  /** Names of clients, projects and people; the hosts each client answers to. A grant whose project is gone is left out. */
  private async describe(
    grants: Pick<ListedGrant, 'id' | 'clientId' | 'projectId' | 'userId' | 'permissions' | 'createdAt' | 'lastUsedAt' | 'idJagIssuer'>[],
  ): Promise<OrganizationGrantView[]> {
    const [clients, projects, users] = await Promise.all([
      this.clients.summariesOf(grants.map((g) => g.clientId)),
      this.projects.namesOf(grants.map((g) => g.projectId)),
      this.users.profilesOf(grants.map((g) => g.userId)),
    ]);
    return grants
      .filter((g) => clients.has(g.clientId) && projects.has(g.projectId))
      .map((g) => {
        const client = clients.get(g.clientId)!;
        const user = users.get(g.userId);
        return {
          id: g.id,
          client: {
            id: g.clientId,
            name: client.name,
            kind: metadataDocumentHost(g.clientId) === undefined ? ('registered' as const) : ('metadata_document' as const),
            hosts: clientHosts(g.clientId, client.redirectUris),
          },
          project: { id: g.projectId, name: projects.get(g.projectId)!.name },
          user: user ? { id: g.userId, ...user } : null,
          permissions: g.permissions,
          createdAt: g.createdAt,
          lastUsedAt: g.lastUsedAt,
          ...viaIdentityProvider(g.idJagIssuer),
        };
      });
  }
}

/** The `identityProvider` of a grant an ID-JAG made (nothing for a consented one). */
function viaIdentityProvider(issuer: string | null): { identityProvider?: { issuer: string } } {
  return issuer ? { identityProvider: { issuer } } : {};
}
