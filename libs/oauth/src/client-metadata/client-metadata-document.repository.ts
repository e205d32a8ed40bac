import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, MoreThan, Repository } from 'typeorm';
import { deleteInBatches } from '@app/database';
import { ClientMetadataDocument } from './client-metadata-document.entity';
import type { ClientMetadata } from './document-validation';

/** The only queries on `client_metadata_documents`. */
@Injectable()
export class ClientMetadataDocumentRepository {
  constructor(
    @InjectRepository(ClientMetadataDocument) private readonly repository: Repository<ClientMetadataDocument>,
    private readonly dataSource: DataSource,
  ) {}

  /** The cached document of `clientId` while it is fresh, else null. */
  async findFresh(clientId: string, now = new Date()): Promise<ClientMetadata | null> {
    const row = await this.repository.findOne({ where: { clientId, expiresAt: MoreThan(now) } });
    return row ? { clientId: row.clientId, clientName: row.clientName, redirectUris: row.redirectUris, tokenEndpointAuthMethod: 'none' } : null;
  }

  /**
   * The cached document of `clientId` even past its lifetime, up to `staleSeconds` after it
   * (`fresh` says whether it is still within it), else null: a document that was valid once, served
   * when a fetch may not be made now (a budget is spent) and counted as a known document.
   */
  async findUsable(clientId: string, staleSeconds: number): Promise<{ metadata: ClientMetadata; fresh: boolean } | null> {
    const [row] = await this.dataSource.query<{ client_id: string; client_name: string; redirect_uris: string[]; fresh: boolean }[]>(
      `SELECT client_id, client_name, redirect_uris, expires_at > now() AS fresh FROM client_metadata_documents
        WHERE client_id = $1 AND expires_at > now() - make_interval(secs => $2)`,
      [clientId, staleSeconds],
    );
    if (!row) return null;
    return {
      metadata: { clientId: row.client_id, clientName: row.client_name, redirectUris: row.redirect_uris, tokenEndpointAuthMethod: 'none' },
      fresh: row.fresh,
    };
  }

  /** Stores a freshly fetched document, replacing what was cached for it. */
  async save(metadata: ClientMetadata, fetchedAt: Date, expiresAt: Date): Promise<void> {
    await this.repository.upsert(
      { clientId: metadata.clientId, clientName: metadata.clientName, redirectUris: metadata.redirectUris, fetchedAt, expiresAt },
      ['clientId'],
    );
  }

  /** Forgets a document (its latest fetch said not to keep it, or it failed). */
  async remove(clientId: string): Promise<void> {
    await this.repository.delete({ clientId });
  }

  /** Deletes documents expired more than `staleSeconds` ago (kept that long to be served stale) in batches; answers how many. */
  async deleteExpired(staleSeconds: number): Promise<number> {
    return deleteInBatches(this.dataSource, 'client_metadata_documents', 'client_id', `expires_at <= now() - interval '${Math.floor(staleSeconds)} seconds'`);
  }
}
