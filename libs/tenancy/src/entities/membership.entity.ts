import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { MembershipRole } from '../roles';

@Index('memberships_user_idx', ['userId'])
@Check('memberships_role_check', `role IN ('admin', 'member')`)
@Entity('memberships')
export class Membership {
  @ForeignKey('Organization', { name: 'memberships_organization_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  organizationId: string;

  @ForeignKey('User', { name: 'memberships_user_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  userId: string;

  @Column('text')
  role: MembershipRole;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
