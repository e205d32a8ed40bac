import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A person's link to an IdP account: (`issuer`, `subject`). A row with no subject is pending: an
 * account SCIM created, linked at its first SSO sign-in through that issuer (by email).
 */
@Index('identity_links_subject_key', ['issuer', 'subject'], { unique: true, where: 'subject IS NOT NULL' })
@Index('identity_links_user_issuer_key', ['userId', 'issuer'], { unique: true })
@Entity('identity_links')
export class IdentityLink {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('User', { name: 'identity_links_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;

  @Column('text')
  issuer: string;

  @Column('text', { nullable: true })
  subject: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  linkedAt: Date | null;
}
