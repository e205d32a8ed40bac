import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** An organisation's approval webhook (see the migration `ApprovalWebhooks1764000024002`); the secret is stored encrypted. */
@Entity('approval_webhooks')
export class ApprovalWebhook {
  @ForeignKey('Organization', { name: 'approval_webhooks_organization_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  organizationId: string;

  @Column('text')
  url: string;

  @Column('text')
  signingSecret: string;

  @CreateDateColumn({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
