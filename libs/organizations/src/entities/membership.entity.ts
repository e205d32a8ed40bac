import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const MEMBERSHIP_ROLES = ['admin', 'member'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

@Entity('memberships')
export class Membership {
  @PrimaryColumn('uuid')
  organizationId: string;

  @PrimaryColumn('uuid')
  userId: string;

  @Column('text')
  role: MembershipRole;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
