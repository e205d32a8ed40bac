import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ApiKeyPermission } from '../api-key-permissions';

/** A scoped `rk_` key of one organisation. Only the SHA-256 digest of the secret is stored. */
@Index('api_keys_hash_key', ['keyHash'], { unique: true })
@Index('api_keys_org_idx', ['organizationId', 'createdAt'])
@Index('api_keys_replaced_by_idx', ['replacedById'], { where: 'replaced_by_id IS NOT NULL' })
@Check('api_keys_secret_last4_check', 'char_length(secret_last4) = 4')
@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Organization', { name: 'api_keys_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @Column('text')
  name: string;

  @Column('text', { select: false })
  keyHash: string;

  @Column('text', { array: true })
  permissions: ApiKeyPermission[];

  /** The secret's last four characters, for lists to tell keys apart; null for keys made before they were kept. */
  @Column({ type: 'text', nullable: true })
  secretLast4: string | null;

  @Column({ type: 'uuid', nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  /** Set while the key rotates out: the key that replaces it (it ends at `expiresAt`). */
  @Column({ type: 'uuid', nullable: true })
  replacedById: string | null;
}
