import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An ID-JAG traded at the token endpoint, by its issuer and `jti`: each is used once, across
 * instances (the primary key decides), and the row is kept until the assertion expires.
 */
@Index('id_jag_assertions_expires_idx', ['expiresAt'])
@Entity('id_jag_assertions')
export class IdJagAssertion {
  @PrimaryColumn('text')
  issuer: string;

  @PrimaryColumn('text')
  jti: string;

  @Column('timestamptz')
  expiresAt: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  usedAt: Date;
}
