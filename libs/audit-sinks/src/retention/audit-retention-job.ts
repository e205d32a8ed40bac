import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AuditRetentionService, type Expiry, SERVICE_CHAIN } from '@app/audit';
import { Rounds } from '@app/common';
import { AppConfig } from '@app/config';
import { AuditSinksRepository } from '../audit-sinks.repository';
import { AuditStreamRepository } from '../otlp/audit-stream.repository';

/** The first round a minute after start, then one an hour. */
const FIRST_ROUND_MS = 60_000;
const ROUND_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Expires each chain's records past its retention (docs/audit.md, "Retention"): the longer of
 * `AUDIT_RETENTION_DAYS` and the organisation's own period; never beyond what every sink of the
 * organisation, and the OTLP stream when there is one, has received.
 */
@Injectable()
export class AuditRetentionJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AuditRetentionJob.name);
  private readonly rounds = new Rounds(
    async () => void (await this.runOnce()),
    ROUND_MS,
    (error) => this.logger.warn(`audit retention failed, retried at the next round: ${error.message}`),
  );

  constructor(
    private readonly retention: AuditRetentionService,
    private readonly sinks: AuditSinksRepository,
    private readonly stream: AuditStreamRepository,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.rounds.start(FIRST_ROUND_MS);
  }

  onApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }

  /** The chain's period: the deployment's, or the organisation's when longer. */
  daysOf(retentionDays: number | null): number {
    return Math.max(retentionDays ?? 0, this.config.auditRetentionDays);
  }

  /** One round: each chain expired as far as it may be; what went, by chain. */
  async runOnce(now = new Date()): Promise<Map<string, Expiry>> {
    const expired = new Map<string, Expiry>();
    for (const { chain, retentionDays } of await this.retention.expiring()) {
      const days = this.daysOf(retentionDays);
      let maxSeq = Number.MAX_SAFE_INTEGER;
      if (chain !== SERVICE_CHAIN) maxSeq = (await this.sinks.leastDelivered(chain)) ?? maxSeq;
      if (this.config.auditOtlpLogsEndpoint) maxSeq = Math.min(maxSeq, await this.stream.deliveredSeq(chain));
      const expiry = await this.retention.expire(chain, new Date(now.getTime() - days * DAY_MS), maxSeq, days);
      if (expiry) expired.set(chain, expiry);
    }
    return expired;
  }
}
