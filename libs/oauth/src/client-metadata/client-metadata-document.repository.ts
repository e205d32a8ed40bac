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

  /** Deletes expired documents in batches; answers how many. */
  async deleteExpired(): Promise<number> {
    return deleteInBatches(this.dataSource, 'client_metadata_documents', 'client_id', 'expires_at <= now()');
  }
}
