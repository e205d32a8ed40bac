import { Injectable } from '@nestjs/common';
import type { AuditEventDto } from '@app/audit';
import { isUuid } from '@app/common';
import { ApiKeyStore, ServiceKeyStore } from '@app/credential-store';
import { OAuthGrantsService } from '@app/oauth';
import type { Member } from '@app/people';
import { ProjectDirectory, UserDirectory } from '@app/tenancy';
import type { AuditNames } from './audit-words';

/**
 * The names behind the ids a page of audit events carries (people, keys, AI clients, projects),
 * read in one batch per kind from their owners, so each row can say who did what in words.
 * Revoked keys keep their names; a deleted person or project has none.
 */
@Injectable()
export class AuditNamesReader {
  constructor(
    private readonly users: UserDirectory,
    private readonly projects: ProjectDirectory,
    private readonly apiKeys: ApiKeyStore,
    private readonly serviceKeys: ServiceKeyStore,
    private readonly grants: OAuthGrantsService,
  ) {}

  async namesFor(organizationId: string, events: AuditEventDto[], members: Member[]): Promise<AuditNames> {
    const ids = { users: new Set<string>(), apiKeys: new Set<string>(), serviceKeys: new Set<string>(), clients: new Set<string>(), projects: new Set<string>() };
    const add = (set: Set<string>, value: unknown) => typeof value === 'string' && value !== '' && set.add(value);
    const KINDS: Record<string, Set<string>> = { user: ids.users, api_key: ids.apiKeys, service_key: ids.serviceKeys, oauth_client: ids.clients };
    for (const event of events) {
      if (KINDS[event.actorType]) add(KINDS[event.actorType]!, event.actorId);
      if (event.targetType && KINDS[event.targetType]) add(KINDS[event.targetType]!, event.targetId);
      const m = event.metadata;
      for (const value of [m.createdBy, m.handedOverTo, m.userId]) add(ids.users, value);
      add(ids.serviceKeys, m.serviceKeyId);
      add(ids.clients, m.clientId);
      add(ids.projects, event.projectId);
    }
    const users = new Map(members.map((m) => [m.userId, { name: m.name, email: m.email }]));
    const missing = [...ids.users].filter((id) => isUuid(id) && !users.has(id));
    const [found, apiKeys, serviceKeys, clients, projects] = await Promise.all([
      Promise.all(missing.map((id) => this.users.findById(id))),
      this.apiKeys.namesOf(organizationId, [...ids.apiKeys]),
      this.serviceKeys.namesOf(organizationId, [...ids.serviceKeys]),
      this.grants.clientNamesOf([...ids.clients]),
      this.projects.namesOf([...ids.projects]),
    ]);
    for (const user of found) if (user) users.set(user.id, { name: user.name, email: user.email });
    const ownProjects = new Map([...projects.values()].filter((p) => p.organization.id === organizationId).map((p) => [p.id, p.name]));
    return { users, apiKeys, serviceKeys, clients, projects: ownProjects };
  }
}
