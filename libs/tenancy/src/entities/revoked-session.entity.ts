import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

/** A signed-out session (its JWT `jti`), kept until the session would have expired anyway. */
@Index('revoked_sessions_expiry_idx', ['expiresAt'])
@Entity('revoked_sessions')
export class RevokedSession {
  @PrimaryColumn('uuid')
  jti: string;

  @ForeignKey('User', { name: 'revoked_sessions_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;

  @Column('timestamptz')
  expiresAt: Date;
}
