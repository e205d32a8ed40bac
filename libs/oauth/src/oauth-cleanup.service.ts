import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CleanupScheduler, deleteInBatches } from '@app/database';
import { OAuthClientsService } from './oauth-clients.service';

/**
 * How long a row outlives its use: a used authorization code and an expired refresh token stay
 * this long past their expiry, and what hangs off a revoked grant this long past the
 * revocation, so that a late replay still meets the row (and its precise error) for a while.
 */
export const EXPIRED_ROW_RETENTION_SECONDS = 24 * 3600;

export interface OAuthCleanupReport {
  authorizationCodes: number;
  authorizationRequests: number;
  refreshTokens: number;
  accessTokens: number;
  unusedClients: number;
}

/**
 * Periodic deletion of OAuth rows nothing will read again (every CLEANUP_INTERVAL_SECONDS, a
 * `@nestjs/schedule` interval registered through `CleanupScheduler`). Each kind goes in
 * bounded batches that skip rows locked by another instance, so several instances can run it
 * at once. What stays, on purpose: grants (revoked ones too: the record of what was approved,
 * small, one per consent), every refresh token within its lifetime (reuse detection), a used
 * code for a day past its expiry (replay detection), the newest access token of every grant
 * (the connected-clients list shows a grant only while it has one and derives its last use
 * from them), and the audit trail, which this never touches.
 */
@Injectable()
export class OAuthCleanupService implements OnModuleInit {
  private readonly logger = new Logger('OAuthCleanup');

  constructor(
    private readonly dataSource: DataSource,
    private readonly clients: OAuthClientsService,
    private readonly scheduler: CleanupScheduler,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('oauth-cleanup', () => this.deleteExpired(), this.logger);
  }

  async deleteExpired(): Promise<OAuthCleanupReport> {
    const keep = [EXPIRED_ROW_RETENTION_SECONDS];
    const revokedLongAgo = `SELECT id FROM oauth_grants WHERE revoked_at < now() - make_interval(secs => $1)`;
    const report: OAuthCleanupReport = {
      // Unused and expired: nothing left to detect. Used: kept a day past expiry, so a replay
      // still revokes the grant (RFC 6749 §4.1.2). Any code of a grant revoked a day ago.
      authorizationCodes: await deleteInBatches(
        this.dataSource,
        'oauth_authorization_codes',
        'id',
        `(used_at IS NULL AND expires_at < now())
          OR expires_at < now() - make_interval(secs => $1)
          OR grant_id IN (${revokedLongAgo})`,
        keep,
      ),
      // A consent request is read only while pending: decided or expired, it is done.
      authorizationRequests: await deleteInBatches(
        this.dataSource,
        'oauth_authorization_requests',
        'id',
        'decided_at IS NOT NULL OR expires_at < now()',
      ),
      // Within its lifetime a rotated token still detects reuse; past expiry it only answers
      // "expired". Kept a day longer; those of a grant revoked a day ago go too.
      refreshTokens: await deleteInBatches(
        this.dataSource,
        'oauth_refresh_tokens',
        'id',
        `expires_at < now() - make_interval(secs => $1) OR grant_id IN (${revokedLongAgo})`,
        keep,
      ),
      // OAuth access tokens (one per issue, hourly per client): expired a day ago and superseded
      // by a newer token of the same grant issued after its last use (so the grant's "last used"
      // does not change), or of a grant revoked a day ago.
      accessTokens: await deleteInBatches(
        this.dataSource,
        'agent_tokens',
        'id',
        `source = 'oauth' AND (
           grant_id IN (${revokedLongAgo})
           OR (expires_at < now() - make_interval(secs => $1)
               AND EXISTS (SELECT 1 FROM agent_tokens n
                            WHERE n.grant_id = agent_tokens.grant_id
                              AND n.created_at > coalesce(agent_tokens.last_used_at, agent_tokens.created_at))))`,
        keep,
      ),
      unusedClients: await this.clients.deleteUnusedClients(),
    };
    const total = Object.values(report).reduce((a, b) => a + b, 0);
    if (total > 0) this.logger.log(`deleted ${JSON.stringify(report)}`);
    return report;
  }
}
