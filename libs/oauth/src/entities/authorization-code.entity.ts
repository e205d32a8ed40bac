import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A single-use authorization code (`dgc_`), bound to its grant, client, redirect URI, PKCE challenge and resource. */
@Entity('oauth_authorization_codes')
export class AuthorizationCode {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { select: false })
  codeHash: string;

  @Column('uuid')
  grantId: string;

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
