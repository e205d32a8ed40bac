import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AgentPermission } from '@app/capabilities';

/**
 * What a person approved on the consent page: one client may act on one project with the ticked
 * permissions. Refresh tokens and access tokens hang off a grant; revoking it ends them all.
 * A grant made by trading an ID-JAG (Enterprise-Managed Authorization) names its identity
 * provider in `idJagIssuer`: one live grant per person, client, project and issuer, reused by
 * every trade.
 */
// On (user_id, created_at DESC), written in the migration: TypeORM cannot say DESC.
@Index('oauth_grants_user_idx', { synchronize: false })
@Index('oauth_grants_org_user_idx', ['organizationId', 'userId'], { where: 'revoked_at IS NULL' })
@Index('oauth_grants_project_idx', ['projectId'], { where: 'revoked_at IS NULL' })
@Index('oauth_grants_id_jag_key', ['userId', 'clientId', 'projectId', 'idJagIssuer'], {
  unique: true,
  where: 'revoked_at IS NULL AND id_jag_issuer IS NOT NULL',
})
@Index('oauth_grants_revoked_idx', ['revokedAt'], { where: 'revoked_at IS NOT NULL' })
@Check('oauth_grants_permissions_check', 'cardinality(permissions) > 0')
@Entity('oauth_grants')
export class OAuthGrant {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('User', { name: 'oauth_grants_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;

  @ForeignKey('OAuthClient', { name: 'oauth_grants_client_id_fkey', onDelete: 'CASCADE' })
  @Column('text')
  clientId: string;

  @ForeignKey('Organization', { name: 'oauth_grants_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @ForeignKey('Project', { name: 'oauth_grants_project_id_fkey', onDelete: 'CASCADE' })
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

  /** The issuer of the ID-JAG this grant was traded for; null for a consent. */
  @Column({ type: 'text', nullable: true })
  idJagIssuer: string | null;
}
