import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { MembershipRole } from '@app/tenancy';

/**
 * A person as the organisation's SCIM client sees them (its `Users` resource; `id` is the SCIM
 * id). `active = false`: deprovisioned, so a later SSO sign-in does not bring the membership back.
 */
@Index('provisioned_users_org_user_key', ['organizationId', 'userId'], { unique: true })
@Index('provisioned_users_org_user_name_key', ['organizationId', 'userName'], { unique: true })
@Check('provisioned_users_role_check', `role IN ('admin', 'member')`)
@Entity('provisioned_users')
export class ProvisionedUser {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Organization', { name: 'provisioned_users_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @ForeignKey('User', { name: 'provisioned_users_user_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  userId: string | null;

  /** The email, lower case (SCIM `userName`). */
  @Column('text')
  userName: string;

  @Column('text', { nullable: true })
  externalId: string | null;

  @Column('text', { nullable: true })
  givenName: string | null;

  @Column('text', { nullable: true })
  familyName: string | null;

  @Column('text', { nullable: true })
  displayName: string | null;

  @Column('boolean', { default: true })
  active: boolean;

  /** The role the SCIM client gives the person (the membership's, kept while they are not a member). */
  @Column('text', { default: 'member' })
  role: MembershipRole;

  /** The invitation sent when the email already had an account (never linked). */
  @ForeignKey('Invitation', { name: 'provisioned_users_invitation_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  invitationId: string | null;

  /** SCIM created the account (no password; pending link): SCIM may rename it. */
  @Column('boolean', { default: false })
  accountCreated: boolean;

  /** The SCIM client deleted the person: gone from `/scim/v2`, still deprovisioned (`active` false). */
  @Column('timestamptz', { nullable: true })
  deletedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
