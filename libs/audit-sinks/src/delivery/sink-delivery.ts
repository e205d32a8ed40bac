import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AuditChainService } from '@app/audit';
import { Rounds } from '@app/common';
import { AppConfig, decryptSecret } from '@app/config';
import { Metrics } from '@app/observability';
import { safeFetch, systemResolver } from '@app/outbound';
import { AuditSinksRepository } from '../audit-sinks.repository';
import { AuditSinksService, sinkSecretPlace } from '../audit-sinks.service';
import type { AuditSink } from '../entities/audit-sink.entity';
import { MAX_BATCH_LINES, nextBatch } from './sink-batch';
import { SINK_STATUSES, sinkRequest } from './sink-request';

/** Rounds: how often each instance looks for sinks with something to deliver. */
const ROUND_MS = 500;
/** One request's bound: resolution, connection, body and answer. */
const REQUEST_TIMEOUT_MS = 15_000;

class SinkRefused extends Error {}

/**
 * Delivers each organisation's chain to its sinks (docs/audit.md, "Sinks"): in `seq` order, at
 * least once — a sink's position moves only after it accepted a body, so a crash resends the
 * batch (receivers deduplicate by `seq`). One instance per organisation at a time: the one
 * holding its lease row (`audit_sink_leases`, renewed each round, taken over once expired); a
 * move of the position is conditional on still holding it.
 */
@Injectable()
export class AuditSinkDelivery implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AuditSinkDelivery.name);
  /** This instance's name in lease rows. */
  readonly holder = randomUUID();
  private readonly rounds = new Rounds(
    () => this.round(),
    ROUND_MS,
    (error) => this.logger.warn(`audit sink delivery failed, retried at the next round: ${error.message}`),
  );

  constructor(
    private readonly sinks: AuditSinksRepository,
    private readonly service: AuditSinksService,
    private readonly chains: AuditChainService,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    this.rounds.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }

  /** One round: every organisation with a sink due, whose lease this instance holds or takes. */
  async round(): Promise<void> {
    const lag = { https: 0, splunk_hec: 0 };
    for (const organizationId of await this.sinks.organizationsDue()) {
      if (this.rounds.isStopped || !(await this.sinks.takeLease(organizationId, this.holder))) continue;
      for (const sink of await this.sinks.due(organizationId)) {
        const behind = await this.deliver(sink);
        lag[sink.kind] = Math.max(lag[sink.kind], behind);
      }
    }
    this.metrics.setAuditSinkLag('https', lag.https);
    this.metrics.setAuditSinkLag('splunk_hec', lag.splunk_hec);
  }

  /** Sends a sink batches until it is current, refuses, or the lease is lost; answers its remaining lag. */
  private async deliver(sink: AuditSink): Promise<number> {
    let from = Number(sink.lastDeliveredSeq);
    let checkpointFrom = Number(sink.lastCheckpointSeq);
    let limit = sink.batchLimit;
    const secret = this.secretOf(sink);
    for (;;) {
      if (this.rounds.isStopped) break;
      const late = checkpointFrom < from ? (await this.chains.checkpoints(sink.organizationId, checkpointFrom, from)).map((checkpoint) => ({ checkpoint })) : [];
      const batch = await nextBatch(late, this.chains.export(sink.organizationId, { afterSeq: from }), from, limit);
      if (!batch) break;
      const request = sinkRequest(sink, batch, secret);
      try {
        const answer = await safeFetch(request.url, {
          resolve: systemResolver,
          wording: {
            host: "The sink's host",
            document: 'The audit sink',
            plural: 'audit sinks',
            userAgent: 'agent-gateway-audit-sink',
            error: (message) => new SinkRefused(message),
          },
          allowLoopback: this.config.outboundAllowLoopback,
          allowHosts: this.config.outboundAllowHosts,
          timeoutMs: REQUEST_TIMEOUT_MS,
          maxBytes: 64 * 1024,
          body: request.body,
          headers: request.headers,
          acceptStatuses: SINK_STATUSES,
        });
        if (answer.status === 413) {
          if (limit === 1) throw new SinkRefused('The audit sink answered HTTP 413 to a single record');
          limit = Math.max(1, Math.floor(limit / 2));
          continue;
        }
      } catch (error) {
        const message = error instanceof SinkRefused ? error.message : 'The audit sink could not be reached';
        const failures = sink.failures + 1;
        const wait = Math.min(this.config.auditSinkMaxBackoffSeconds, 2 ** Math.min(failures - 1, 16));
        await this.sinks.failed(sink.id, message, wait, limit);
        sink.failures = failures;
        break;
      }
      const next = Math.min(MAX_BATCH_LINES, limit * 2);
      const checkpointSeq = Math.max(checkpointFrom, batch.checkpointSeq);
      if (!(await this.sinks.delivered(sink.id, from, batch.lastSeq, checkpointSeq, this.holder, next))) break;
      from = batch.lastSeq;
      checkpointFrom = checkpointSeq;
      limit = next;
      sink.failures = 0;
    }
    return Math.max(0, (await this.chains.headSeq(sink.organizationId)) - from);
  }

  private secretOf(sink: AuditSink): string {
    if (sink.kind === 'https') return decryptSecret(this.service.keyRing, sink.signingSecret!, sinkSecretPlace(sink.id, 'signing_secret'));
    return decryptSecret(this.service.keyRing, sink.token!, sinkSecretPlace(sink.id, 'token'));
  }
}
