import { createHash } from 'node:crypto';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CleanupScheduler, queryReturning } from '@app/database';
import { SsoState } from './entities';

const digest = (state: string) => createHash('sha256').update(state).digest('base64url');

/**
 * The table `sso_states`, the only place that queries it: each started single sign-on's `state`,
 * spent at its first valid presentation by one conditional update, so that a replayed state is
 * refused on every instance (SPEC §10). Expired rows are deleted periodically.
 */
@Injectable()
export class SsoStateDirectory implements OnModuleInit {
  private readonly logger = new Logger('SingleSignOn');

  constructor(
    private readonly dataSource: DataSource,
    private readonly scheduler: CleanupScheduler,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('sso-states-cleanup', () => this.deleteExpired(), this.logger);
  }

  /** Records a started sign-in's state, usable for `ttlSeconds`; a step-up names the session it refreshes. */
  async record(state: string, organizationId: string, ttlSeconds: number, stepUpSessionId: string | null = null): Promise<void> {
    await this.dataSource.manager
      .getRepository(SsoState)
      .createQueryBuilder()
      .insert()
      .values({ stateHash: digest(state), organizationId, stepUpSessionId, expiresAt: () => `now() + make_interval(secs => ${Math.floor(ttlSeconds)})` })
      .execute();
  }

  /**
   * A step-up's record, read after its state was spent: the session it was started for (null:
   * not a step-up), when it started and the database's time now (seconds since the epoch).
   */
  async stepUpOf(state: string): Promise<{ sessionId: string | null; startedAt: number; now: number } | null> {
    const rows: { step_up_session_id: string | null; started_at: string | number; now: string | number }[] = await this.dataSource.query(
      'SELECT step_up_session_id, extract(epoch FROM created_at) AS started_at, extract(epoch FROM now()) AS now FROM sso_states WHERE state_hash = $1',
      [digest(state)],
    );
    const row = rows[0];
    return row ? { sessionId: row.step_up_session_id, startedAt: Number(row.started_at), now: Number(row.now) } : null;
  }

  /** Spends the state: true for its first presentation while unexpired, false for any later one (on any instance). */
  async spend(state: string): Promise<boolean> {
    const rows = await queryReturning<{ state_hash: string }>(
      this.dataSource.manager,
      'UPDATE sso_states SET spent_at = now() WHERE state_hash = $1 AND spent_at IS NULL AND expires_at > now() RETURNING state_hash',
      [digest(state)],
    );
    return rows.length === 1;
  }

  async deleteExpired(): Promise<number> {
    const result = await this.dataSource.manager.getRepository(SsoState).createQueryBuilder().delete().where('expires_at < now()').execute();
    return result.affected ?? 0;
  }
}
