import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A single-use authorization code (`dgc_`), bound to its grant, client, redirect URI, PKCE challenge and resource. */
@Index('oauth_authorization_codes_hash_key', ['codeHash'], { unique: true })
@Index('oauth_authorization_codes_grant_idx', ['grantId'])
@Index('oauth_authorization_codes_expiry_idx', ['expiresAt'])
@Entity('oauth_authorization_codes')
export class AuthorizationCode {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { select: false })
  codeHash: string;

  @ForeignKey('OAuthGrant', { name: 'oauth_authorization_codes_grant_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  grantId: string;

  @ForeignKey('OAuthClient', { name: 'oauth_authorization_codes_client_id_fkey', onDelete: 'CASCADE' })
  @Column('text')
  clientId: string;

  @Column('text')
  redirectUri: string;

  @Column('boolean')
  redirectUriSent: boolean;

  @Column('text')
  codeChallenge: string;

  @Column({ type: 'text', nullable: true })
  resource: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
