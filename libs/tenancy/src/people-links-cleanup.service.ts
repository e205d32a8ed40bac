import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CleanupScheduler, deleteInBatches } from '@app/database';

/**
 * How long an invitation that was never accepted stays past its expiry: the admins' list shows
 * it as expired (or withdrawn) for this long, then it goes.
 */
export const LAPSED_INVITATION_RETENTION_SECONDS = 7 * 24 * 3600;

export interface PeopleLinksCleanupReport {
  invitations: number;
  resetLinks: number;
}

/**
 * Periodic deletion (every CLEANUP_INTERVAL_SECONDS, through `CleanupScheduler`) of the people
 * links nothing will use again: invitations never accepted whose expiry is
 * `LAPSED_INVITATION_RETENTION_SECONDS` past (accepted ones stay: who joined through which
 * invitation), and password-reset links once used or expired (nothing lists them; a replay gets
 * the same "unknown, used or expired" answer either way). Bounded batches that skip rows
 * another instance is deleting.
 */
@Injectable()
export class PeopleLinksCleanupService implements OnModuleInit {
  private readonly logger = new Logger('PeopleLinksCleanup');

  constructor(
    private readonly dataSource: DataSource,
    private readonly scheduler: CleanupScheduler,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('people-links-cleanup', () => this.deleteStale(), this.logger);
  }

  async deleteStale(): Promise<PeopleLinksCleanupReport> {
    const report: PeopleLinksCleanupReport = {
      invitations: await deleteInBatches(this.dataSource, 'invitations', 'id', `accepted_at IS NULL AND expires_at < now() - make_interval(secs => $1)`, [
        LAPSED_INVITATION_RETENTION_SECONDS,
      ]),
      resetLinks: await deleteInBatches(this.dataSource, 'password_reset_links', 'id', 'used_at IS NOT NULL OR expires_at < now()'),
    };
    if (report.invitations + report.resetLinks > 0) this.logger.log(`deleted ${JSON.stringify(report)}`);
    return report;
  }
}
