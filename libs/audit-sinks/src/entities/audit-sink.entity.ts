import { Check, Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** Where an organisation's audit chain is delivered, and how far it got (docs/audit.md, "Sinks"). */
@Entity('audit_sinks')
@Check('audit_sinks_kind_check', `kind IN ('https', 'splunk_hec')`)
export class AuditSink {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Organization', { name: 'audit_sinks_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @Column('text')
  kind: 'https' | 'splunk_hec';

  @Column('text')
  url: string;

  /** `https`: the Standard Webhooks signing secret, encrypted. */
  @Column({ type: 'text', nullable: true })
  signingSecret: string | null;

  /** `splunk_hec`: the HEC token, encrypted. */
  @Column({ type: 'text', nullable: true })
  token: string | null;

  @Column({ type: 'bigint', default: 0 })
  lastDeliveredSeq: string;

  /** The last checkpoint delivered (one signed after its record was delivered still goes out). */
  @Column({ type: 'bigint', default: 0 })
  lastCheckpointSeq: string;

  @Column({ type: 'text', nullable: true })
  lastError: string | null;

  @Column({ type: 'integer', default: 0 })
  failures: number;

  @Column({ type: 'integer', default: 500 })
  batchLimit: number;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt: Date;

  @CreateDateColumn({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}

/** The instance delivering an organisation's sinks, until `expiresAt`. */
@Entity('audit_sink_leases')
export class AuditSinkLease {
  @ForeignKey('Organization', { name: 'audit_sink_leases_organization_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  organizationId: string;

  @Column('text')
  holder: string;

  @Column('timestamptz')
  expiresAt: Date;
}
