import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

/** One sign-in: the session JWT's `jti`, kept until the session expires or is ended. */
@Index('sessions_user_created_idx', ['userId', 'createdAt'])
@Index('sessions_expiry_idx', ['expiresAt'])
@Entity('sessions')
export class SignInSession {
  @PrimaryColumn('uuid')
  id: string;

  @ForeignKey('User', { name: 'sessions_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;

  @Column('timestamptz')
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column('text', { nullable: true })
  userAgent: string | null;

  @Column('text', { nullable: true })
  ip: string | null;

  /**
   * When the person last proved who they are in this session (the sign-in, or a later
   * re-authentication), by the database's clock: what a recent sign-in is measured from.
   */
  @Column('timestamptz', { default: () => 'now()' })
  authenticatedAt: Date;

  /** The identity provider's issuer for a single sign-on session; null for a password sign-in. */
  @Column('text', { nullable: true })
  ssoIssuer: string | null;
}
