import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A bearer token of an organisation's SCIM client (`scim_…`), made by an admin and shown once:
 * only its SHA-256 digest and last four characters are kept. It opens that organisation's
 * `/scim/v2` only, and outlives the admin who made it (like a service key).
 */
@Index('scim_tokens_token_hash_key', ['tokenHash'], { unique: true })
@Index('scim_tokens_org_idx', ['organizationId', 'createdAt'])
@Entity('scim_tokens')
export class ScimToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Organization', { name: 'scim_tokens_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @Column('text')
  name: string;

  @Column('text', { select: false })
  tokenHash: string;

  @Column('text')
  secretLast4: string;

  /** The person who made it (the audit event's actor). */
  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { nullable: true })
  revokedAt: Date | null;

  /** When it stops working (its admin's choice); null: never. */
  @Column('timestamptz', { nullable: true })
  expiresAt: Date | null;
}
