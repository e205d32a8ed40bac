import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One key's budget in one fixed window, shared by every instance (`SharedWindowBudget`): `hits`
 * is how much of the window's limit the instances have taken between them (each takes it in
 * small leases and spends them from memory), `lastGranted` the size of the last lease, read back
 * by the statement that granted it. The key names the window (`…@<window start, ms>`), so a new
 * window is a new row; rows whose window has ended are deleted by the periodic cleanup.
 */
@Entity('rate_limit_leases')
export class RateLimitLease {
  @PrimaryColumn('text')
  key: string;

  @Column('int')
  hits: number;

  @Column('int')
  lastGranted: number;

  @Index('rate_limit_leases_window_end_idx')
  @Column({ type: 'timestamptz' })
  windowEndsAt: Date;
}
