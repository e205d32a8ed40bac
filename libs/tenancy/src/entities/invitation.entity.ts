import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { MembershipRole } from '../roles';

/**
 * An invitation to join an organisation with a role. Only the SHA-256 digest of the link's
 * secret is stored; it is used once (`accepted_at`), may be withdrawn, and expires.
 */
@Index('invitations_token_hash_key', ['tokenHash'], { unique: true })
@Index('invitations_org_idx', ['organizationId', 'createdAt'])
@Index('invitations_expiry_idx', ['expiresAt'])
@Check('invitations_role_check', `role IN ('admin', 'member')`)
@Entity('invitations')
export class Invitation {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Organization', { name: 'invitations_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @Column('text')
  email: string;

  @Column('text')
  role: MembershipRole;

  @Column('text', { select: false })
  tokenHash: string;

  @ForeignKey('User', { name: 'invitations_invited_by_fkey', onDelete: 'SET NULL' })
  @Column({ type: 'uuid', nullable: true })
  invitedBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  acceptedAt: Date | null;

  @ForeignKey('User', { name: 'invitations_accepted_by_fkey', onDelete: 'SET NULL' })
  @Column({ type: 'uuid', nullable: true })
  acceptedBy: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  withdrawnAt: Date | null;
}
