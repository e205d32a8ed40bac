import { Check, Column, Entity, ForeignKey, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { PolicyRule } from '../policy-rules';

/**
 * An organisation's policy over agents' calls: its rules as written and a version each save
 * raises by one. No row: no rule, every call allowed (version 0 to the API).
 */
@Entity('organization_policies')
@Check('organization_policies_version_check', 'version > 0')
export class OrganizationPolicy {
  @ForeignKey('Organization', { name: 'organization_policies_organization_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  organizationId: string;

  @Column('integer')
  version: number;

  @Column('jsonb')
  rules: PolicyRule[];

  @UpdateDateColumn({ type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  @Column('uuid', { nullable: true })
  updatedBy: string | null;
}
