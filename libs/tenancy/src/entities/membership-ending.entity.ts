import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

/**
 * When a person's membership of an organisation last ended or was replaced (removal, demotion,
 * deprovisioning): the current membership began then, and a session issued before it does not
 * open the organisation (SPEC §10). No row: the membership has been continuous. Whether SCIM
 * deprovisioned the person is not kept here: `provisioned_users` (`libs/identity`) says it.
 */
@Index('membership_endings_user_idx', ['userId'])
@Entity('membership_endings')
export class MembershipEnding {
  @ForeignKey('Organization', { name: 'membership_endings_organization_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  organizationId: string;

  @ForeignKey('User', { name: 'membership_endings_user_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  userId: string;

  @Column('timestamptz', { default: () => 'now()' })
  endedAt: Date;

  /** An admin removed the person: a single sign-on does not add them back (an invitation or SCIM does). */
  @Column('boolean', { default: false })
  removed: boolean;
}
