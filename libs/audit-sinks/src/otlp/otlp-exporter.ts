import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { LoggerProvider, type LogRecordProcessor, type ReadableLogRecord, type SdkLogRecord } from '@opentelemetry/sdk-logs';
import type { ExportLine } from '@app/audit';

/** The instrumentation scope of the stream's log records. */
export const AUDIT_LOG_SCOPE = 'agent-gateway.audit';
/** `ExportResultCode.SUCCESS` of `@opentelemetry/core` (not a dependency of its own here). */
const EXPORT_SUCCESS = 0;
/** One export's bound (the exporter retries 429, 502, 503 and 504 within it). */
const EXPORT_TIMEOUT_MS = 15_000;

/** OCSF `severity_id` (1 informational … 5 critical, 6 fatal) as an OpenTelemetry severity number. */
const SEVERITY: Record<number, number> = { 1: 9, 2: 10, 3: 13, 4: 17, 5: 21, 6: 21 };

/**
 * Hands each record the logger emits to whoever asks next, instead of a buffer of the SDK's own:
 * the stream exports them itself and moves its position only once the collector accepted them.
 */
class TakenRecords implements LogRecordProcessor {
  private records: SdkLogRecord[] = [];
  onEmit(record: SdkLogRecord): void {
    this.records.push(record);
  }
  take(): ReadableLogRecord[] {
    const taken = this.records;
    this.records = [];
    return taken;
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/**
 * Export lines as OpenTelemetry log records over OTLP/HTTP (JSON), with the SDK's logger and its
 * OTLP exporter. Each record's body is the export line exactly as the sinks receive it (a sealed
 * OCSF event with `unmapped.chain`, or a checkpoint line); its attributes say which chain, which
 * `seq`, which OCSF class and action, for routing in the collector.
 */
export class AuditLogExporter {
  private readonly processor = new TakenRecords();
  private readonly provider: LoggerProvider;
  private readonly exporter: OTLPLogExporter;

  constructor(url: string, resource: LoggerProviderResource) {
    this.provider = new LoggerProvider({ resource, processors: [this.processor] });
    this.exporter = new OTLPLogExporter({ url, timeoutMillis: EXPORT_TIMEOUT_MS });
  }

  /** Exports one chain's lines; resolves once the collector accepted them, else rejects. */
  async export(chain: string, serialised: readonly string[], lines: readonly ExportLine[]): Promise<void> {
    const logger = this.provider.getLogger(AUDIT_LOG_SCOPE);
    this.processor.take();
    lines.forEach((line, i) => {
      if ('checkpoint' in line) {
        const checkpoint = line.checkpoint as { seq: number; time: number };
        logger.emit({
          eventName: 'audit.checkpoint',
          timestamp: checkpoint.time,
          severityNumber: 9,
          body: serialised[i],
          attributes: { 'audit.chain': chain, 'audit.seq': checkpoint.seq, 'audit.line': 'checkpoint' },
        });
        return;
      }
      const metadata = (line.metadata ?? {}) as { uid?: string; event_code?: string };
      const seq = (line.unmapped as { chain: { seq: number } }).chain.seq;
      logger.emit({
        eventName: 'audit.ocsf',
        timestamp: line.time as number,
        severityNumber: SEVERITY[line.severity_id as number] ?? 0,
        body: serialised[i],
        attributes: {
          'audit.chain': chain,
          'audit.seq': seq,
          'audit.line': 'event',
          'ocsf.class_uid': line.class_uid as number,
          'ocsf.metadata.uid': metadata.uid ?? '',
          'ocsf.metadata.event_code': metadata.event_code ?? '',
        },
      });
    });
    const records = this.processor.take();
    await new Promise<void>((resolve, reject) =>
      this.exporter.export(records, (result) => (result.code === EXPORT_SUCCESS ? resolve() : reject(result.error ?? new Error('the OTLP collector refused the logs')))),
    );
  }

  async shutdown(): Promise<void> {
    await this.exporter.shutdown();
  }
}

type LoggerProviderResource = NonNullable<ConstructorParameters<typeof LoggerProvider>[0]>['resource'];
