import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { queryAffected, readStatement, statement } from '@app/database';
import { OAuthClient } from '../entities/oauth-client.entity';

/** A registration as stored, with its secret's digest (null for a public client). */
export type StoredClient = Pick<OAuthClient, 'clientId' | 'clientName' | 'redirectUris' | 'grantTypes' | 'tokenEndpointAuthMethod' | 'clientSecretHash'> & {
  /** The organisation an organisation client belongs to; null for others. */
  organizationId?: string | null;
};

/** An organisation client as its organisation's admins see it (SPEC §10). */
export interface OrganizationClientRow {
  clientId: string;
  clientName: string;
  createdAt: Date;
  createdBy: string | null;
  lastUsedAt: Date | null;
}

const FIND = statement(
  'oauth_clients.find',
  'SELECT client_id, client_name, redirect_uris, grant_types, token_endpoint_auth_method, client_secret_hash, organization_id FROM oauth_clients WHERE client_id = $1',
);

interface ClientRow {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  token_endpoint_auth_method: StoredClient['tokenEndpointAuthMethod'];
  client_secret_hash: string | null;
  organization_id: string | null;
}

/** The `oauth_clients` table (RFC 7591 registrations). */
@Injectable()
export class OAuthClientsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    em: EntityManager,
    client: StoredClient & { registrationIp: string | null; createdBy?: string | null },
  ): Promise<Date> {
    const result = await em.getRepository(OAuthClient).insert(client);
    return (result.generatedMaps[0] as { createdAt: Date }).createdAt;
  }

  /**
   * Writes a metadata-document client (public, no secret) or brings its name and redirect URIs
   * up to date; an unchanged row is not touched.
   */
  async upsertDocumentClient(clientId: string, clientName: string, redirectUris: string[], grantTypes: string[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_clients AS c (client_id, client_name, redirect_uris, grant_types, token_endpoint_auth_method, client_secret_hash, registration_ip)
       VALUES ($1, $2, $3, $4, 'none', NULL, NULL)
       ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name, redirect_uris = excluded.redirect_uris
        WHERE c.client_name IS DISTINCT FROM excluded.client_name OR c.redirect_uris IS DISTINCT FROM excluded.redirect_uris`,
      [clientId, clientName, redirectUris, grantTypes],
    );
  }

  async find(clientId: string): Promise<StoredClient | null> {
    const [row] = await readStatement<ClientRow>(this.dataSource, FIND, [clientId]);
    if (!row) return null;
    return {
      clientId: row.client_id,
      clientName: row.client_name,
      redirectUris: row.redirect_uris,
      grantTypes: row.grant_types,
      tokenEndpointAuthMethod: row.token_endpoint_auth_method,
      clientSecretHash: row.client_secret_hash,
      organizationId: row.organization_id,
    };
  }

  /** The organisation's own clients, oldest first. */
  async listForOrganization(organizationId: string): Promise<OrganizationClientRow[]> {
    const rows = await this.dataSource.getRepository(OAuthClient).find({
      select: { clientId: true, clientName: true, createdAt: true, createdBy: true, lastUsedAt: true },
      where: { organizationId },
      order: { createdAt: 'ASC', clientId: 'ASC' },
    });
    return rows.map((r) => ({ clientId: r.clientId, clientName: r.clientName, createdAt: r.createdAt, createdBy: r.createdBy, lastUsedAt: r.lastUsedAt }));
  }

  /** One of the organisation's own clients, or null (another organisation's is null too). */
  async findInOrganization(organizationId: string, clientId: string, em?: EntityManager): Promise<OrganizationClientRow | null> {
    return (await this.listWhere(organizationId, [clientId], em))[0] ?? null;
  }

  /** Which of these client ids are the organisation's own clients. */
  async ownedBy(organizationId: string, clientIds: readonly string[], em?: EntityManager): Promise<Set<string>> {
    return new Set((await this.listWhere(organizationId, clientIds, em)).map((r) => r.clientId));
  }

  private async listWhere(organizationId: string, clientIds: readonly string[], em?: EntityManager): Promise<OrganizationClientRow[]> {
    const ids = clientIds.filter((id) => id.length <= 200);
    if (ids.length === 0) return [];
    const rows = await (em ?? this.dataSource.manager).getRepository(OAuthClient).find({
      select: { clientId: true, clientName: true, createdAt: true, createdBy: true, lastUsedAt: true },
      where: { organizationId, clientId: In([...new Set(ids)]) },
    });
    return rows.map((r) => ({ clientId: r.clientId, clientName: r.clientName, createdAt: r.createdAt, createdBy: r.createdBy, lastUsedAt: r.lastUsedAt }));
  }

  /** Replaces an organisation client's secret digest (one conditional update); false when it is not the organisation's. */
  async replaceSecret(em: EntityManager, organizationId: string, clientId: string, clientSecretHash: string): Promise<boolean> {
    const result = await em.getRepository(OAuthClient).update({ organizationId, clientId }, { clientSecretHash });
    return (result.affected ?? 0) > 0;
  }

  /** Deletes an organisation client (its grants, codes and tokens go with it by the foreign keys); false when it is not the organisation's. */
  async deleteInOrganization(em: EntityManager, organizationId: string, clientId: string): Promise<boolean> {
    const result = await em.getRepository(OAuthClient).delete({ organizationId, clientId });
    return (result.affected ?? 0) > 0;
  }

  /** An organisation client's token request, in the request's transaction. */
  async markUsed(em: EntityManager, clientId: string): Promise<void> {
    await em.getRepository(OAuthClient).update({ clientId }, { lastUsedAt: () => 'now()' });
  }

  /** Client names by id (for the connected-clients list). */
  async namesOf(clientIds: string[]): Promise<Map<string, string>> {
    if (clientIds.length === 0) return new Map();
    const clients = await this.dataSource.getRepository(OAuthClient).find({
      select: { clientId: true, clientName: true },
      where: { clientId: In([...new Set(clientIds)]) },
    });
    return new Map(clients.map((c) => [c.clientId, c.clientName]));
  }

  /** Client names and redirect URIs by id (for the organisation's connected-clients list). */
  async summariesOf(clientIds: string[]): Promise<Map<string, { name: string; redirectUris: string[] }>> {
    if (clientIds.length === 0) return new Map();
    const clients = await this.dataSource.getRepository(OAuthClient).find({
      select: { clientId: true, clientName: true, redirectUris: true },
      where: { clientId: In([...new Set(clientIds)]) },
    });
    return new Map(clients.map((c) => [c.clientId, { name: c.clientName, redirectUris: c.redirectUris }]));
  }

  async markAuthorized(em: EntityManager, clientId: string): Promise<void> {
    await em.getRepository(OAuthClient).update({ clientId }, { lastAuthorizedAt: () => 'now()' });
  }

  /**
   * Up to `limit` registrations that never completed an authorisation and are older than
   * `ttlSeconds`, after `afterId` in id order (keyset pages for the cleanup). An organisation
   * client is kept: it belongs to its organisation and waits, unused, until its identity provider
   * and AI client are set up for it (SPEC §10).
   */
  async unusedCandidates(ttlSeconds: number, limit: number, afterId = ''): Promise<string[]> {
    const rows: { client_id: string }[] = await this.dataSource.query(
      `SELECT client_id FROM oauth_clients
        WHERE last_authorized_at IS NULL AND created_at < now() - make_interval(secs => $1) AND client_id > $2
          AND organization_id IS NULL
        ORDER BY client_id LIMIT $3`,
      [ttlSeconds, afterId, limit],
    );
    return rows.map((r) => r.client_id);
  }

  /**
   * Deletes these registrations if they are still unused: the condition is checked again by the
   * delete itself, so a consent completed meanwhile (which sets `last_authorized_at` in its
   * transaction) keeps its client.
   */
  deleteIfUnused(clientIds: readonly string[], ttlSeconds: number): Promise<number> {
    if (clientIds.length === 0) return Promise.resolve(0);
    return queryAffected(
      this.dataSource,
      `DELETE FROM oauth_clients
        WHERE client_id = ANY($1) AND last_authorized_at IS NULL AND organization_id IS NULL AND created_at < now() - make_interval(secs => $2)`,
      [clientIds, ttlSeconds],
    );
  }
}
