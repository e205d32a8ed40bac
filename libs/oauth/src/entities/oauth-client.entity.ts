import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export const CLIENT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** A client registered through dynamic client registration (RFC 7591). */
@Index('oauth_clients_never_used_idx', ['createdAt'], { where: 'last_authorized_at IS NULL' })
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
}
