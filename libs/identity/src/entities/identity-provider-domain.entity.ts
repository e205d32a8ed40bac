import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

/**
 * An email domain an organisation claims for its IdP. It counts only once verified (DNS TXT
 * `agent-gateway-verification=<token>` or the operator's CLI); a verified domain belongs to one
 * organisation (the partial unique index).
 */
@Index('identity_provider_domains_verified_key', ['domain'], { unique: true, where: 'verified_at IS NOT NULL' })
@Entity('identity_provider_domains')
export class IdentityProviderDomain {
  @ForeignKey('Organization', { name: 'identity_provider_domains_organization_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  organizationId: string;

  /** Lower case, no trailing dot. */
  @PrimaryColumn('text')
  domain: string;

  @Column('text')
  verificationToken: string;

  @Column('timestamptz', { nullable: true })
  verifiedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
