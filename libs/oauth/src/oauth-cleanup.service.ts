import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { AgentTokensRepository, RefreshTokensRepository } from '@app/credentials';
import { PeriodicTask } from '@app/database';
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
 * Periodic deletion of OAuth rows nothing will read again (an unref'd timer every
 * CLEANUP_INTERVAL_SECONDS, started with the module and stopped on shutdown). Each kind goes in
 * bounded batches that skip rows locked by another instance, so several instances can run it
 * at once. What stays, on purpose: grants (revoked ones too: the record of what was approved,
 * small, one per consent), every refresh token within its lifetime (reuse detection), a used
 * code for a day past its expiry (replay detection), the newest access token of every grant
 * (the connected-clients list shows a grant only while it has one and derives its last use
 * from them), and the audit trail, which this never touches.
 */
@Injectable()
export class OAuthCleanupService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('OAuthCleanup');
  private readonly task: PeriodicTask;

  constructor(
    private readonly clients: OAuthClientsService,
    private readonly codes: AuthorizationCodesRepository,
    private readonly requests: AuthorizationRequestsRepository,
    private readonly refreshTokens: RefreshTokensRepository,
    private readonly agentTokens: AgentTokensRepository,
    config: AppConfig,
  ) {
    this.task = new PeriodicTask(config.cleanupIntervalSeconds, () => this.deleteExpired(), this.logger);
  }

  onModuleInit(): void {
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
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
