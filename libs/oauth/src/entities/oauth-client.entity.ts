import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

export const CLIENT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** A client registered through dynamic client registration (RFC 7591). */
@Index('oauth_clients_never_used_idx', ['createdAt'], { where: 'last_authorized_at IS NULL' })
@Index('oauth_clients_organization_idx', ['organizationId'], { where: 'organization_id IS NOT NULL' })
// A client registered for the jwt-bearer grant alone (ID-JAG) has no redirect URI.
@Check('oauth_clients_redirect_uris_check', `cardinality(redirect_uris) > 0 OR NOT ('authorization_code' = ANY (grant_types))`)
@Check('oauth_clients_token_endpoint_auth_method_check', `token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic')`)
@Check('oauth_clients_check', `(token_endpoint_auth_method = 'none') = (client_secret_hash IS NULL)`)
@Entity('oauth_clients')
export class OAuthClient {
  @PrimaryColumn('text')
  clientId: string;

  @Column('text')
  clientName: string;

  @Column('text', { array: true })
  redirectUris: string[];

  @Column('text', { array: true })
  grantTypes: string[];

  @Column('text')
  tokenEndpointAuthMethod: ClientAuthMethod;

  /** SHA-256 digest of the `dgs_` secret of a confidential client; null for public clients. */
  @Column({ type: 'text', nullable: true, select: false })
  clientSecretHash: string | null;

  @Column({ type: 'text', nullable: true, select: false })
  registrationIp: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /** Last approved consent; a client never authorised expires after a day. */
  @Column({ type: 'timestamptz', nullable: true })
  lastAuthorizedAt: Date | null;

  /** An organisation client (SPEC §10): the organisation whose admin made it; null for a registered or metadata-document client. */
  @ForeignKey('Organization', { name: 'oauth_clients_organization_id_fkey', onDelete: 'CASCADE' })
  @Column({ type: 'uuid', nullable: true })
  organizationId: string | null;

  /** The admin who made an organisation client (a record: the client survives them). */
  @Column({ type: 'uuid', nullable: true })
  createdBy: string | null;

  /** An organisation client's last token request. */
  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
