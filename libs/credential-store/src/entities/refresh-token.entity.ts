import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

export type RefreshTokenOrigin = 'authorization_code' | 'rotation' | 'grace';

/**
 * A rotating refresh token (`dgr_`) of a grant. `parentId` links each token to the one it
 * replaced, `issuedBy` says whether it came from the code, the one winning rotation, or a reuse
 * inside the grace window.
 */
@Index('oauth_refresh_tokens_hash_key', ['tokenHash'], { unique: true })
@Index('oauth_refresh_tokens_grant_idx', ['grantId'])
@Index('oauth_refresh_tokens_parent_idx', ['parentId'], { where: 'parent_id IS NOT NULL' })
@Index('oauth_refresh_tokens_expiry_idx', ['expiresAt'])
@Check('oauth_refresh_tokens_issued_by_check', `issued_by IN ('authorization_code', 'rotation', 'grace')`)
@Entity('oauth_refresh_tokens')
export class RefreshToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { select: false })
  tokenHash: string;

  @ForeignKey('OAuthGrant', { name: 'oauth_refresh_tokens_grant_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  grantId: string;

  @ForeignKey('RefreshToken', { name: 'oauth_refresh_tokens_parent_id_fkey', onDelete: 'SET NULL' })
  @Column({ type: 'uuid', nullable: true })
  parentId: string | null;

  @Column('text')
  issuedBy: RefreshTokenOrigin;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  rotatedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
