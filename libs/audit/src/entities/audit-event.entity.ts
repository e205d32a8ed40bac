import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

// On (organization_id, created_at DESC, id DESC), written in the migration: TypeORM cannot say DESC.
@Index('audit_events_org_idx', { synchronize: false })
// The filters' indexes (migration AuditFilterIndexes): descending keys and expressions TypeORM cannot say.
@Index('audit_events_action_idx', { synchronize: false })
@Index('audit_events_project_idx', { synchronize: false })
@Index('audit_events_actor_idx', { synchronize: false })
@Index('audit_events_target_idx', { synchronize: false })
@Index('audit_events_service_key_idx', { synchronize: false })
@Index('audit_events_grant_idx', { synchronize: false })
@Index('audit_events_client_idx', { synchronize: false })
// The chain's order and the sealer's queue (migration AuditChain): a unique pair, and a partial index.
@Index('audit_events_chain_seq_key', { synchronize: false })
@Index('audit_events_unsealed_idx', { synchronize: false })
@Entity('audit_events')
export class AuditEvent {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Organization', { name: 'audit_events_organization_id_fkey', onDelete: 'CASCADE' })
  @Column({ type: 'uuid', nullable: true })
  organizationId: string | null;

  @Column({ type: 'uuid', nullable: true })
  projectId: string | null;

  @Column('text')
  actorType: string;

  @Column({ type: 'text', nullable: true })
  actorId: string | null;

  @Column('text')
  action: string;

  @Column({ type: 'text', nullable: true })
  targetType: string | null;

  @Column({ type: 'text', nullable: true })
  targetId: string | null;

  @Column('jsonb', { default: {} })
  metadata: Record<string, unknown>;

  @Column({ type: 'text', nullable: true })
  ip: string | null;

  @Column({ type: 'text', nullable: true })
  userAgent: string | null;

  @Column({ type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;

  /** The organisation's id, or `service` for the service's own chain. */
  @Column('text')
  chain: string;

  /** The OCSF 1.8.0 event, built when the record was written (null only on rows older than it, until sealed). */
  @Column({ type: 'jsonb', nullable: true })
  event: Record<string, unknown> | null;

  @Column({ type: 'bigint', nullable: true })
  seq: string | null;

  @Column({ type: 'text', nullable: true })
  prevHash: string | null;

  @Column({ type: 'text', nullable: true })
  hash: string | null;

  /** An aggregate of refusals: not sealed before its minute has closed. */
  @Column({ type: 'timestamptz', nullable: true })
  sealAfter: Date | null;
}
