import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A person as the organisation's SCIM client sees them (its `Users` resource; `id` is the SCIM
 * id). `active = false`: deprovisioned, so a later SSO sign-in does not bring the membership back.
 */
@Index('provisioned_users_org_user_key', ['organizationId', 'userId'], { unique: true })
@Index('provisioned_users_org_user_name_key', ['organizationId', 'userName'], { unique: true })
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

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
