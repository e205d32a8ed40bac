import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type RefreshTokenOrigin = 'authorization_code' | 'rotation' | 'grace';

/**
 * A rotating refresh token (`dgr_`) of a grant. `parentId` links each token to the one it
 * replaced, `issuedBy` says whether it came from the code, the one winning rotation, or a reuse
 * inside the grace window.
 */
@Entity('oauth_refresh_tokens')
export class RefreshToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { select: false })
  tokenHash: string;

  @Column('uuid')
  grantId: string;

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
