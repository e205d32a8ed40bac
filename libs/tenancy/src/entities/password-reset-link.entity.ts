import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A one-time password-reset link (SHA-256 digest of its secret only), used once, expiring. */
@Index('password_reset_links_token_hash_key', ['tokenHash'], { unique: true })
@Index('password_reset_links_user_idx', ['userId'])
@Entity('password_reset_links')
export class PasswordResetLink {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('User', { name: 'password_reset_links_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;

  @Column('text', { select: false })
  tokenHash: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
