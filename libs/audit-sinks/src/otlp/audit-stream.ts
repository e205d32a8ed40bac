import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AuditChainService } from '@app/audit';
import { Rounds } from '@app/common';
import { AppConfig } from '@app/config';
import { Metrics } from '@app/observability';
import { MAX_BATCH_LINES, nextBatch } from '../delivery/sink-batch';
import { AuditStreamRepository, type StreamPosition } from './audit-stream.repository';
import type { AuditLogExporter } from './otlp-exporter';

/** Rounds: how often each instance looks for chains with something to export. */
const ROUND_MS = 500;

/**
 * The operator's stream (docs/audit.md, "The operator's stream"): every chain — each
 * organisation's and the service's — as OpenTelemetry logs to `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`,
 * fed from the same outbox as the sinks: the chain itself, read after the chain's position in
 * `audit_stream_positions`, which moves only after the collector accepted the batch. So at least
 * once and in `seq` order, and neither a collector outage nor a kill -9 loses a record; one
 * instance exports a chain at a time (the position row's lease). Off when the variable is unset.
 */
@Injectable()
export class AuditStream implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AuditStream.name);
  readonly holder = randomUUID();
  private exporter: AuditLogExporter | undefined;
  private readonly rounds = new Rounds(
    () => this.round(),
    ROUND_MS,
    (error) => this.logger.warn(`the audit stream failed, retried at the next round: ${error.message}`),
  );

  constructor(
    private readonly positions: AuditStreamRepository,
    private readonly chains: AuditChainService,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    const url = this.config.auditOtlpLogsEndpoint;
    if (!url) return;
    const { AuditLogExporter } = require('./otlp-exporter') as typeof import('./otlp-exporter');
    this.exporter = new AuditLogExporter(url, streamResource());
    this.rounds.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
    await this.exporter?.shutdown();
  }

  /** One round: every chain that moved past its position (or got a checkpoint) and whose lease this instance holds or takes. */
  async round(): Promise<void> {
    const positions = await this.positions.positions();
    let lag = 0;
    for (const head of await this.chains.heads()) {
      const at = positions.get(head.chain);
      const behind = head.seq - (at?.lastDeliveredSeq ?? 0);
      if (at && (!at.due || (behind === 0 && head.checkpointSeq <= at.lastCheckpointSeq))) {
        lag = Math.max(lag, behind);
        continue;
      }
      if (this.rounds.isStopped) break;
      const position = await this.positions.takeLease(head.chain, this.holder);
      if (!position) continue;
      lag = Math.max(lag, head.seq - (await this.export(position)));
    }
    this.metrics.setAuditSinkLag('otlp', lag);
  }

  /** Exports a chain batch by batch until it is current, the collector fails, or the lease is lost; answers where it stands. */
  private async export(position: StreamPosition): Promise<number> {
    const { chain } = position;
    let from = position.lastDeliveredSeq;
    let checkpointFrom = position.lastCheckpointSeq;
    while (!this.rounds.isStopped) {
      const late = checkpointFrom < from ? (await this.chains.checkpoints(chain, checkpointFrom, from)).map((checkpoint) => ({ checkpoint })) : [];
      const batch = await nextBatch(late, this.chains.export(chain, { afterSeq: from }), from, MAX_BATCH_LINES);
      if (!batch) break;
      try {
        await this.exporter!.export(chain, batch.serialised, batch.lines);
      } catch (error) {
        const failures = position.failures + 1;
        if (failures === 1) this.logger.warn(`the OTLP collector did not take the audit logs, retrying: ${(error as Error).message}`);
        const wait = Math.min(this.config.auditSinkMaxBackoffSeconds, 2 ** Math.min(failures - 1, 16));
        await this.positions.failed(chain, (error as Error).message || 'the OTLP collector could not be reached', wait);
        break;
      }
      const checkpointSeq = Math.max(checkpointFrom, batch.checkpointSeq);
      if (!(await this.positions.delivered(chain, from, batch.lastSeq, checkpointSeq, this.holder))) break;
      from = batch.lastSeq;
      checkpointFrom = checkpointSeq;
      position.failures = 0;
    }
    return from;
  }
}

/**
 * The stream's resource: the SDK's defaults, `service.name` `agent-gateway`, and whatever
 * `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` say (they win), as for the traces.
 */
function streamResource() {
  const { resources } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  return resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'agent-gateway' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
}
