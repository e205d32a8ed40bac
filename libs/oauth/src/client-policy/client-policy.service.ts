import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { DomainError } from '@app/common';
import { CredentialRevoker, OAuthGrantStore } from '@app/credential-store';
import { clientHosts } from '../redirect-uri';
import { OAuthClientsRepository } from '../store/oauth-clients.repository';
import type { ClientPolicyDto, UpdateClientPolicyDto, UpdatedClientPolicyDto } from './client-policy.dto';
import { admitsClient, canonicalHost, ClientPolicy } from './client-policy';
import { ClientPolicyRepository } from './client-policy.repository';

/** What a policy would end if saved: the connected clients it refuses and their live grants. */
export interface RefusedClients {
  grants: number;
  clients: { id: string; name: string; hosts: string[]; grants: number }[];
}

/**
 * An organisation's say over which AI clients connect. A change is stored, and the grants of
 * clients it refuses are revoked with their tokens, in one transaction: they stop working at
 * once. Consent, code exchange and refresh check the policy too (`admits`).
 */
@Injectable()
export class ClientPolicyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly policies: ClientPolicyRepository,
    private readonly grants: OAuthGrantStore,
    private readonly revoker: CredentialRevoker,
    private readonly audit: AuditService,
    private readonly clients: OAuthClientsRepository,
  ) {}

  async get(organizationId: string): Promise<ClientPolicyDto> {
    const { mode, allowedHosts, allowRegisteredClients, updatedAt } = await this.policies.find(organizationId);
    return { organizationId, mode, allowedHosts, allowRegisteredClients, updatedAt };
  }

  async update(
    organizationId: string,
    body: UpdateClientPolicyDto,
    actor: AuditActor,
  ): Promise<UpdatedClientPolicyDto> {
    const policy = normalise(body);
    return this.dataSource.transaction(async (em) => {
      const updatedAt = await this.policies.save(em, organizationId, policy);
      const refused = (await this.grants.liveClientIds(em, organizationId)).filter((clientId) => !admitsClient(policy, clientId));
      const { revokedGrants } = await this.revoker.revokeClientAccess(em, organizationId, refused, actor);
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'client_policy.updated',
        targetType: 'organization',
        targetId: organizationId,
        metadata: { ...policy, revokedGrants },
      });
      return { organizationId, ...policy, updatedAt, revokedGrants };
    });
  }

  /**
   * What saving `body` would end, without saving it: the clients with live grants in the
   * organisation that it refuses (refused the same way as `update`, so the same input errors).
   */
  async refusedBy(organizationId: string, body: UpdateClientPolicyDto): Promise<RefusedClients> {
    const policy = normalise(body);
    const counts = await this.grants.liveCountsByClient(organizationId);
    const refused = [...counts.keys()].filter((clientId) => !admitsClient(policy, clientId));
    const summaries = await this.clients.summariesOf(refused);
    const clients = refused
      .map((id) => ({ id, name: summaries.get(id)?.name ?? id, hosts: clientHosts(id, summaries.get(id)?.redirectUris ?? []), grants: counts.get(id)! }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { grants: clients.reduce((sum, c) => sum + c.grants, 0), clients };
  }

  /** Whether the organisation admits the client (inside the caller's transaction when given). */
  async admits(organizationId: string, clientId: string, em?: EntityManager): Promise<boolean> {
    return admitsClient(await this.policies.find(organizationId, em), clientId);
  }

  /** Of these organisations, the ones that admit the client. */
  async admittingOrganizations(organizationIds: string[], clientId: string): Promise<Set<string>> {
    const policies = await this.policies.findMany(organizationIds);
    return new Set(organizationIds.filter((id) => admitsClient(policies.get(id)!, clientId)));
  }
}

/** The stored form of a request: hosts canonical, sorted and unique; `any` keeps no list. */
function normalise(body: UpdateClientPolicyDto): ClientPolicy {
  if (body.mode === 'any') {
    if (body.allowedHosts?.length || body.allowRegisteredClients === false) {
      throw new DomainError('invalid_client_policy', 'allowedHosts and allowRegisteredClients apply only to mode "listed"');
    }
    return { mode: 'any', allowedHosts: [], allowRegisteredClients: true };
  }
  const hosts = new Set<string>();
  for (const [index, raw] of (body.allowedHosts ?? []).entries()) {
    const host = canonicalHost(raw);
    if (!host) {
      throw new DomainError(
        'invalid_client_policy',
        `allowedHosts[${index}] is not a host name: give the host of a client_id URL, such as claude.ai (no scheme, path or wildcard)`,
      );
    }
    hosts.add(host);
  }
  return { mode: 'listed', allowedHosts: [...hosts].sort(), allowRegisteredClients: body.allowRegisteredClients ?? false };
}
