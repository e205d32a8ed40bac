import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

/** A started single sign-on's `state` (its SHA-256 digest), single use across instances (SPEC §10). */
@Index('sso_states_expires_idx', ['expiresAt'])
@Entity('sso_states')
export class SsoState {
  @PrimaryColumn('text')
  stateHash: string;

  @ForeignKey('Organization', { name: 'sso_states_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  /** A step-up's session: the sign-in it refreshes (null: an ordinary sign-in). */
  @ForeignKey('SignInSession', { name: 'sso_states_step_up_session_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid', { nullable: true })
  stepUpSessionId: string | null;

  /** When its first valid presentation spent it. */
  @Column('timestamptz', { nullable: true })
  spentAt: Date | null;
}
