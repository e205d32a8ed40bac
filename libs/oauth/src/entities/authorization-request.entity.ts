import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AgentPermission } from '@app/capabilities';

/**
 * A validated authorize request waiting for the person's decision on the consent page. The
 * page's form carries only this row's id, a CSRF token (stored as a digest) and the choices.
 */
@Index('oauth_authorization_requests_expiry_idx', ['expiresAt'])
@Entity('oauth_authorization_requests')
export class AuthorizationRequest {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('OAuthClient', { name: 'oauth_authorization_requests_client_id_fkey', onDelete: 'CASCADE' })
  @Column('text')
  clientId: string;

  @ForeignKey('User', { name: 'oauth_authorization_requests_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;

  @Column('text')
  redirectUri: string;

  /** Whether the client sent `redirect_uri` (then the token request must repeat it, RFC 6749 §4.1.3). */
  @Column('boolean')
  redirectUriSent: boolean;

  @Column({ type: 'text', nullable: true })
  state: string | null;

  @Column('text')
  codeChallenge: string;

  @Column('text', { array: true })
  requestedPermissions: AgentPermission[];

  @Column({ type: 'text', nullable: true })
  resource: string | null;

  @Column('text', { select: false })
  csrfHash: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  decidedAt: Date | null;
}
