import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A validated Client ID Metadata Document, cached for every instance until `expiresAt` (its
 * HTTP cache lifetime, clamped to 5 minutes … 24 hours). Only documents that passed every check
 * are stored; a failure is never cached. A fetch replaces the row, so a changed document takes
 * effect at its next fetch.
 */
@Entity('client_metadata_documents')
export class ClientMetadataDocument {
  /** The document's URL, which is also the client's `client_id`. */
  @PrimaryColumn('text')
  clientId: string;

  @Column('text')
  clientName: string;

  @Column('text', { array: true })
  redirectUris: string[];

  @Column({ type: 'timestamptz' })
  fetchedAt: Date;

  @Index('client_metadata_documents_expiry_idx')
  @Column({ type: 'timestamptz' })
  expiresAt: Date;
}
