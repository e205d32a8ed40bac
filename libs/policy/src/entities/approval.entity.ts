import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ApprovalSettings } from '../policy-rules';

export const APPROVAL_STATUSES = ['pending', 'approved', 'consumed', 'denied', 'expired', 'voided'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** One call held by an `approve` rule, bound to that exact call (see the migration `Approvals1764000024000`). */
@Entity('approvals')
@Check('approvals_credential_kind_check', "credential_kind IN ('oauth', 'id_jag', 'derived')")
@Check('approvals_status_check', "status IN ('pending', 'approved', 'consumed', 'denied', 'expired', 'voided')")
@Index('approvals_pending_binding_key', ['bindingSha256'], { unique: true, where: "status = 'pending'" })
@Index('approvals_credential_idx', ['credentialId', 'createdAt'])
@Index('approvals_organization_idx', ['organizationId', 'createdAt'])
export class Approval {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Organization', { name: 'approvals_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @Column('uuid')
  projectId: string;

  @Column('text')
  tool: string;

  @Column('jsonb')
  arguments: Record<string, unknown>;

  @Column('text')
  argumentsSha256: string;

  @Column('text', { nullable: true })
  clientId: string | null;

  @Column('text')
  credentialKind: string;

  @Column('uuid')
  credentialId: string;

  @Column('uuid')
  tokenId: string;

  @Column('uuid', { nullable: true })
  userId: string | null;

  @Column('text')
  ruleId: string;

  @Column('text')
  ruleSha256: string;

  @Column('jsonb')
  settings: Required<ApprovalSettings>;

  @Column('text')
  bindingSha256: string;

  @Column('text', { default: 'pending' })
  status: ApprovalStatus;

  @CreateDateColumn({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column('timestamptz', { nullable: true })
  decidedAt: Date | null;

  @Column('timestamptz', { nullable: true })
  consumedAt: Date | null;

  @Column('text', { nullable: true })
  ruleDescription: string | null;

  /** The distinct people who approved (a `count: 2` rule needs two). */
  @Column('uuid', { array: true, default: () => "'{}'" })
  approvedBy: string[];

  @Column('uuid', { nullable: true })
  deniedBy: string | null;

  @Column('text', { nullable: true })
  decisionReason: string | null;

  @Column('text', { nullable: true })
  voidedReason: string | null;
}
