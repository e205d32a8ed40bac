import { Column, Entity, PrimaryColumn } from 'typeorm';

/** How far the operator's OTLP stream exported one chain, and who exports it (docs/audit.md, "The operator's stream"). */
@Entity('audit_stream_positions')
export class AuditStreamPosition {
  /** An organisation's id, or `service`. */
  @PrimaryColumn('text')
  chain: string;

  @Column({ type: 'bigint', default: 0 })
  lastDeliveredSeq: string;

  @Column({ type: 'bigint', default: 0 })
  lastCheckpointSeq: string;

  @Column({ type: 'text', nullable: true })
  lastError: string | null;

  @Column({ type: 'integer', default: 0 })
  failures: number;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt: Date;

  /** The instance exporting the chain, until `leaseExpiresAt`. */
  @Column({ type: 'text', nullable: true })
  holder: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  leaseExpiresAt: Date | null;
}
