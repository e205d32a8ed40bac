import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { AgentPermission } from '../permissions';

export type AgentTokenSource = 'oauth' | 'service_key';

/**
 * A `dga_` token: an OAuth access token or a project token derived from a service key. Only the
 * SHA-256 digest of the secret is stored. Always bound to exactly one project.
 */
@Entity('agent_tokens')
export class AgentToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { select: false })
  tokenHash: string;

  @Column('text')
  source: AgentTokenSource;

  @Column('uuid')
  organizationId: string;

  @Column('uuid')
  projectId: string;

  @Column('text', { array: true })
  permissions: AgentPermission[];

  @Column({ type: 'uuid', nullable: true })
  serviceKeyId: string | null;

  @Column({ type: 'uuid', nullable: true })
  grantId: string | null;

  @Column({ type: 'text', nullable: true })
  clientId: string | null;

  @Column({ type: 'uuid', nullable: true })
  userId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
