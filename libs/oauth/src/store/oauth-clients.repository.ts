import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { deleteInBatches } from '@app/database';
import { OAuthClient } from '../entities/oauth-client.entity';

/** A registration as stored, with its secret's digest (null for a public client). */
export type StoredClient = Pick<OAuthClient, 'clientId' | 'clientName' | 'redirectUris' | 'grantTypes' | 'tokenEndpointAuthMethod' | 'clientSecretHash'>;

/** The `oauth_clients` table (RFC 7591 registrations). */
@Injectable()
export class OAuthClientsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    em: EntityManager,
    client: StoredClient & { registrationIp: string | null },
  ): Promise<Date> {
    const result = await em.getRepository(OAuthClient).insert(client);
    return (result.generatedMaps[0] as { createdAt: Date }).createdAt;
  }

  find(clientId: string): Promise<StoredClient | null> {
    return this.dataSource.getRepository(OAuthClient).findOne({
      select: { clientId: true, clientName: true, redirectUris: true, grantTypes: true, tokenEndpointAuthMethod: true, clientSecretHash: true },
      where: { clientId },
    });
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

  async markAuthorized(em: EntityManager, clientId: string): Promise<void> {
    await em.getRepository(OAuthClient).update({ clientId }, { lastAuthorizedAt: () => 'now()' });
  }

  /** Registrations that never completed an authorisation and are older than `ttlSeconds`. */
  deleteUnused(ttlSeconds: number): Promise<number> {
    return deleteInBatches(
      this.dataSource,
      'oauth_clients',
      'client_id',
      `last_authorized_at IS NULL AND created_at < now() - make_interval(secs => $1)
       AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.client_id)`,
      [ttlSeconds],
    );
  }
}
