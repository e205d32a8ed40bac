import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { OAuthAccessTokenStore, OAuthGrantStore, RefreshTokenStore } from '@app/credential-store';
import { CleanupScheduler } from '@app/database';
import { UNUSED_CLIENT_TTL_SECONDS } from './client-registration.service';
import { AuthorizationCodesRepository } from './store/authorization-codes.repository';
import { AuthorizationRequestsRepository } from './store/authorization-requests.repository';
import { IdJagAssertionsRepository } from './store/id-jag-assertions.repository';
import { OAuthClientsRepository } from './store/oauth-clients.repository';

/** Rows the cleanup reads or deletes per statement. */
const BATCH = 1000;
/** Pages of unused registrations one run goes through at the most. */
const MAX_BATCHES = 50;

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
 * from them), and the audit trail, which this never touches. A used ID-JAG's (issuer, jti) goes
 * once the assertion has expired (past its skew): an expired assertion is refused before its
 * `jti` is looked at.
 */
@Injectable()
export class OAuthCleanupService implements OnModuleInit {
  private readonly logger = new Logger('OAuthCleanup');

  constructor(
    private readonly clients: OAuthClientsRepository,
    private readonly grants: OAuthGrantStore,
    private readonly codes: AuthorizationCodesRepository,
    private readonly requests: AuthorizationRequestsRepository,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly agentTokens: OAuthAccessTokenStore,
    private readonly scheduler: CleanupScheduler,
    private readonly assertions: IdJagAssertionsRepository,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('oauth-cleanup', () => this.deleteExpired(), this.logger);
    this.scheduler.every('id-jag-assertions-cleanup', () => this.deleteExpiredIdJagAssertions(), this.logger);
  }

  /** The (issuer, jti) of ID-JAGs that have expired (past their skew); answers how many went. */
  async deleteExpiredIdJagAssertions(): Promise<number> {
    const deleted = await this.assertions.deleteExpired(0);
    if (deleted > 0) this.logger.log(`deleted ${deleted} expired ID-JAG ids`);
    return deleted;
  }

  async deleteExpired(): Promise<OAuthCleanupReport> {
    const keep = EXPIRED_ROW_RETENTION_SECONDS;
    const report: OAuthCleanupReport = {
      authorizationCodes: (await this.codes.deleteSpent(keep)) + (await this.deleteCodesOfLongRevokedGrants(keep)),
      authorizationRequests: await this.requests.deleteDone(),
      refreshTokens: await this.refreshTokens.deleteSpent(keep),
      accessTokens: await this.agentTokens.deleteSpentOAuthTokens(keep),
      unusedClients: await this.deleteUnusedClients(),
    };
    const total = Object.values(report).reduce((a, b) => a + b, 0);
    if (total > 0) this.logger.log(`deleted ${JSON.stringify(report)}`);
    return report;
  }

  /** Every code of a grant revoked more than `keep` seconds ago (the grants are the credentials store's). */
  private async deleteCodesOfLongRevokedGrants(keep: number): Promise<number> {
    return this.codes.deleteForGrants(await this.grants.revokedLongerAgoThan(await this.codes.grantIds(), keep));
  }

  /** Registrations never authorised within a day and without any grant, page by page. */
  private async deleteUnusedClients(): Promise<number> {
    let deleted = 0;
    let after = '';
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const candidates = await this.clients.unusedCandidates(UNUSED_CLIENT_TTL_SECONDS, BATCH, after);
      if (candidates.length === 0) break;
      const granted = await this.grants.clientsWithGrants(candidates);
      deleted += await this.clients.deleteIfUnused(candidates.filter((id) => !granted.has(id)), UNUSED_CLIENT_TTL_SECONDS);
      if (candidates.length < BATCH) break;
      after = candidates[candidates.length - 1];
    }
    return deleted;
  }
}
