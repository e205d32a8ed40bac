import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { MembershipRole } from '../roles';

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
