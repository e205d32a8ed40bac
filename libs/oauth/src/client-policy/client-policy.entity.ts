import { Check, Column, Entity, ForeignKey, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const CLIENT_POLICY_MODES = ['any', 'listed'] as const;
export type ClientPolicyMode = (typeof CLIENT_POLICY_MODES)[number];

/**
 * Which AI clients an organisation admits. No row means "any client"; `listed` admits
 * metadata-document clients whose `client_id` URL host is in `allowedHosts`, and registered
 * (RFC 7591) clients as one class when `allowRegisteredClients`.
 */
@Entity('organization_client_policies')
@Check('organization_client_policies_mode_check', `mode IN ('any', 'listed')`)
export class OrganizationClientPolicy {
  @ForeignKey('Organization', { name: 'organization_client_policies_organization_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  organizationId: string;

  @Column('text')
  mode: ClientPolicyMode;

  @Column('text', { array: true, default: () => "'{}'" })
  allowedHosts: string[];

  @Column('boolean', { default: false })
  allowRegisteredClients: boolean;

  @UpdateDateColumn({ type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
