import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { AgentPermission } from '../permissions';

/**
 * What a person approved on the consent page: one client may act on one project with the ticked
 * permissions. Refresh tokens and access tokens hang off a grant; revoking it ends them all.
 */
@Entity('oauth_grants')
export class OAuthGrant {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  userId: string;

  @Column('text')
  clientId: string;

  @Column('uuid')
  organizationId: string;

  @Column('uuid')
  projectId: string;

  @Column('text', { array: true })
  permissions: AgentPermission[];

  @Column({ type: 'text', nullable: true })
  resource: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
