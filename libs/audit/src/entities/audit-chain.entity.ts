import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One audit chain's head: the last sealed record's `seq` and `hash`, and its last checkpoint. */
@Entity('audit_chains')
export class AuditChain {
  @PrimaryColumn('text')
  chain: string;

  @Column({ type: 'bigint', default: 0 })
  seq: string;

  @Column({ type: 'text', nullable: true })
  hash: string | null;

  @Column({ type: 'bigint', default: 0 })
  checkpointSeq: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  checkpointAt: Date;

  /** The organisation's own retention, longer than `AUDIT_RETENTION_DAYS` (null: that). */
  @Column({ type: 'integer', nullable: true })
  retentionDays: number | null;

  /** Records through this `seq` were removed by retention; its checkpoint is the chain's anchor (0: none removed). */
  @Column({ type: 'bigint', default: 0 })
  expiredThroughSeq: string;
}

/** A signed checkpoint of a chain's head (docs/audit.md, "Checkpoints"). */
@Entity('audit_checkpoints')
export class AuditCheckpoint {
  @PrimaryColumn('text')
  chain: string;

  @PrimaryColumn('bigint')
  seq: string;

  @Column('text')
  hash: string;

  @Column('text')
  keyId: string;

  @Column('text')
  signature: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}

/** A public key checkpoints were signed with; every key ever used stays. */
@Entity('audit_checkpoint_keys')
export class AuditCheckpointKey {
  @PrimaryColumn('text')
  keyId: string;

  @Column('text')
  publicKey: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
