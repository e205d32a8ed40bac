import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { statement, statementIn } from '@app/database';
import { OrganizationClientPolicy } from './client-policy.entity';
import { ANY_CLIENT, ClientPolicy } from './client-policy';

export type StoredClientPolicy = ClientPolicy & { updatedAt: Date | null };

const FIND = statement(
  'organization_client_policies.find',
  'SELECT mode, allowed_hosts, allow_registered_clients, updated_at FROM organization_client_policies WHERE organization_id = $1',
);

interface PolicyRow {
  mode: ClientPolicy['mode'];
  allowed_hosts: string[];
  allow_registered_clients: boolean;
  updated_at: Date;
}

/** The only queries on `organization_client_policies`. */
@Injectable()
export class ClientPolicyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The organisation's policy; "any client" when none is stored. */
  async find(organizationId: string, em: EntityManager = this.dataSource.manager): Promise<StoredClientPolicy> {
    const [row] = await statementIn<PolicyRow>(em, FIND, [organizationId]);
    if (!row) return { ...ANY_CLIENT, updatedAt: null };
    return { mode: row.mode, allowedHosts: row.allowed_hosts, allowRegisteredClients: row.allow_registered_clients, updatedAt: row.updated_at };
  }

  /** Policies of several organisations (missing ones are "any client"). */
  async findMany(organizationIds: string[]): Promise<Map<string, ClientPolicy>> {
    const result = new Map<string, ClientPolicy>(organizationIds.map((id) => [id, ANY_CLIENT]));
    if (organizationIds.length === 0) return result;
    const rows = await this.dataSource.getRepository(OrganizationClientPolicy).findBy({ organizationId: In([...new Set(organizationIds)]) });
    for (const row of rows) {
      result.set(row.organizationId, { mode: row.mode, allowedHosts: row.allowedHosts, allowRegisteredClients: row.allowRegisteredClients });
    }
    return result;
  }

  /** Stores the policy (inside the caller's transaction); answers when it changed. */
  async save(em: EntityManager, organizationId: string, policy: ClientPolicy): Promise<Date> {
    const repository = em.getRepository(OrganizationClientPolicy);
    await repository.upsert({ organizationId, ...policy, updatedAt: () => 'now()' }, ['organizationId']);
    const row = await repository.findOneByOrFail({ organizationId });
    return row.updatedAt;
  }
}
