import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AgentPermission } from '@app/capabilities';

export type AgentTokenSource = 'oauth' | 'service_key';

/**
 * A `dga_` token: an OAuth access token or a project token derived from a service key. Only the
 * SHA-256 digest of the secret is stored. Always bound to exactly one project.
 */
@Index('agent_tokens_hash_key', ['tokenHash'], { unique: true })
@Index('agent_tokens_project_idx', ['projectId'], { where: 'revoked_at IS NULL' })
@Index('agent_tokens_service_key_idx', ['serviceKeyId'])
@Index('agent_tokens_grant_idx', ['grantId'], { where: 'grant_id IS NOT NULL' })
// A derived token rotating out carries an expires_at: one active and at most one rotating out per (key, project).
@Index('agent_tokens_one_active_per_key_project', ['serviceKeyId', 'projectId'], {
  unique: true,
  where: 'service_key_id IS NOT NULL AND revoked_at IS NULL AND expires_at IS NULL',
})
@Index('agent_tokens_one_rotating_per_key_project', ['serviceKeyId', 'projectId'], {
  unique: true,
  where: 'service_key_id IS NOT NULL AND revoked_at IS NULL AND expires_at IS NOT NULL',
})
@Index('agent_tokens_oauth_expiry_idx', ['expiresAt'], { where: `source = 'oauth'` })
@Check('agent_tokens_source_check', `source IN ('oauth', 'service_key')`)
@Check('agent_tokens_check', `(source = 'service_key') = (service_key_id IS NOT NULL)`)
@Check('agent_tokens_secret_last4_check', 'char_length(secret_last4) = 4')
@Entity('agent_tokens')
export class AgentToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { select: false })
  tokenHash: string;

  @Column('text')
  source: AgentTokenSource;

  @ForeignKey('Organization', { name: 'agent_tokens_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @ForeignKey('Project', { name: 'agent_tokens_project_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  projectId: string;

  @Column('text', { array: true })
  permissions: AgentPermission[];

  /** A derived token's last four characters, for lists to tell tokens apart; null for OAuth tokens and older ones. */
  @Column({ type: 'text', nullable: true })
  secretLast4: string | null;

  @ForeignKey('ServiceKey', { name: 'agent_tokens_service_key_id_fkey', onDelete: 'CASCADE' })
  @Column({ type: 'uuid', nullable: true })
  serviceKeyId: string | null;

  @ForeignKey('OAuthGrant', { name: 'agent_tokens_grant_fk', onDelete: 'CASCADE' })
  @Column({ type: 'uuid', nullable: true })
  grantId: string | null;

  @Column({ type: 'text', nullable: true })
  clientId: string | null;

  @ForeignKey('User', { name: 'agent_tokens_user_id_fkey', onDelete: 'CASCADE' })
  @Column({ type: 'uuid', nullable: true })
  userId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** The expiry chosen when a derived token was made (`expiresAt` is its rotation's end); null: none. */
  @Column({ type: 'timestamptz', nullable: true })
  validUntil: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
