import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AgentTokensRepository, RefreshTokensRepository } from '@app/credentials';
import { CleanupScheduler } from '@app/database';
import { OAuthClientsService } from './oauth-clients.service';
import { AuthorizationCodesRepository } from './store/authorization-codes.repository';
import { AuthorizationRequestsRepository } from './store/authorization-requests.repository';

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
    private readonly clients: OAuthClientsService,
    private readonly codes: AuthorizationCodesRepository,
    private readonly requests: AuthorizationRequestsRepository,
    private readonly refreshTokens: RefreshTokensRepository,
    private readonly agentTokens: AgentTokensRepository,
    private readonly scheduler: CleanupScheduler,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('oauth-cleanup', () => this.deleteExpired(), this.logger);
  }

  async deleteExpired(): Promise<OAuthCleanupReport> {
    const keep = EXPIRED_ROW_RETENTION_SECONDS;
    const report: OAuthCleanupReport = {
      authorizationCodes: await this.codes.deleteSpent(keep),
      authorizationRequests: await this.requests.deleteDone(),
      refreshTokens: await this.refreshTokens.deleteSpent(keep),
      accessTokens: await this.agentTokens.deleteSpentOAuthTokens(keep),
      unusedClients: await this.clients.deleteUnusedClients(),
    };
    const total = Object.values(report).reduce((a, b) => a + b, 0);
    if (total > 0) this.logger.log(`deleted ${JSON.stringify(report)}`);
    return report;
  }
}
