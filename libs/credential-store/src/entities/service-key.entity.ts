import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AgentPermission } from '@app/capabilities';

/**
 * A service key: created by an organisation administrator, it has no secret of its own. It is
 * the parent of derived project tokens (`dga_`, one per project), which carry its permissions.
 * Revoking it revokes every token derived from it.
 */
@Index('service_keys_org_idx', ['organizationId', 'createdAt'])
@Entity('service_keys')
export class ServiceKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Organization', { name: 'service_keys_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @Column('text')
  name: string;

  @Column('text', { array: true })
  permissions: AgentPermission[];

  /** The user or API key that created it (`actorId` of the audit event). */
  @Column({ type: 'uuid', nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
