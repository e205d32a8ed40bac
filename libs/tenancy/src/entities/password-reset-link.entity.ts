import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A one-time password-reset link (SHA-256 digest of its secret only), used once, expiring. */
@Index('password_reset_links_token_hash_key', ['tokenHash'], { unique: true })
@Index('password_reset_links_user_idx', ['userId'])
@Index('password_reset_links_expiry_idx', ['expiresAt'])
@Entity('password_reset_links')
export class PasswordResetLink {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('User', { name: 'password_reset_links_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;

  /** The organisation whose admin issued the link; null for the command line's links. */
  @ForeignKey('Organization', { name: 'password_reset_links_organization_id_fkey', onDelete: 'CASCADE' })
  @Column({ type: 'uuid', nullable: true })
  organizationId: string | null;

  /** The admin who issued the link; null for the command line's links. */
  @ForeignKey('User', { name: 'password_reset_links_issued_by_fkey', onDelete: 'CASCADE' })
  @Column({ type: 'uuid', nullable: true })
  issuedBy: string | null;

  @Column('text', { select: false })
  tokenHash: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
