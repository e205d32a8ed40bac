import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AuditActor } from '@app/audit';
import { NotFoundError } from '@app/common';
import { AgentPermission, CredentialRevoker, GrantRevocationResult, OAuthGrantsRepository, userOf } from '@app/credentials';
import { isUuid } from '@app/database';
import { ProjectDirectory } from '@app/tenancy';
import { OAuthClientsRepository } from './store/oauth-clients.repository';

export interface AgentGrantView {
  id: string;
  client: { id: string; name: string };
  project: { id: string; name: string };
  organization: { id: string; name: string };
  permissions: AgentPermission[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

/**
 * The person's connected clients: their grants (what they approved for one client on one
 * project), listed and revoked. Revoking a grant (`CredentialRevoker.revokeGrant`) ends its
 * refresh tokens and access tokens in the same transaction; a new consent never ends the
 * person's other grants.
 */
@Injectable()
export class OAuthGrantsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly grants: OAuthGrantsRepository,
    private readonly clients: OAuthClientsRepository,
    private readonly revoker: CredentialRevoker,
    private readonly projects: ProjectDirectory,
  ) {}

  /** Live grants that produced tokens, newest first. */
  async listForUser(userId: string): Promise<AgentGrantView[]> {
    const grants = await this.grants.listLiveForUser(userId);
    const [names, projects] = await Promise.all([
      this.clients.namesOf(grants.map((g) => g.clientId)),
      this.projects.namesOf(grants.map((g) => g.projectId)),
    ]);
    // A deleted project's grants were revoked with it; one deleted meanwhile is left out.
    return grants
      .filter((g) => names.has(g.clientId) && projects.has(g.projectId))
      .map((g) => ({
        id: g.id,
        client: { id: g.clientId, name: names.get(g.clientId)! },
        project: { id: g.projectId, name: projects.get(g.projectId)!.name },
        organization: projects.get(g.projectId)!.organization,
        permissions: g.permissions,
        createdAt: g.createdAt,
        lastUsedAt: g.lastUsedAt,
      }));
  }

  /** The names AI clients registered with, by client id (for lists and the audit log). */
  clientNamesOf(clientIds: readonly string[]): Promise<Map<string, string>> {
    return this.clients.namesOf([...clientIds]);
  }

  /** The person acting revokes one of their own grants; another person's grant is "not found". Idempotent. */
  async revokeForUser(grantId: string, actor: AuditActor): Promise<GrantRevocationResult> {
    const userId = userOf(actor);
    if (!userId || !isUuid(grantId)) throw new NotFoundError('Grant');
    return this.dataSource.transaction(async (em) => {
      const owned = await this.grants.findOwned(em, userId, grantId);
      if (!owned) throw new NotFoundError('Grant');
      if (owned.revokedAt) return { id: grantId, status: 'revoked' as const, revokedAt: owned.revokedAt, revokedTokens: 0 };
      const result = await this.revoker.revokeGrant(em, grantId, 'revoked_by_user', actor);
      return result ?? { id: grantId, status: 'revoked' as const, revokedAt: new Date(), revokedTokens: 0 };
    });
  }
}
