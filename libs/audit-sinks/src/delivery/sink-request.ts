import { Webhook } from 'standardwebhooks';
import type { FetchedDocument, FetcherOptions } from '@app/outbound';
import type { AuditSink } from '../entities/audit-sink.entity';
import type { SinkBatch } from './sink-batch';

/** The Splunk HEC event endpoint, added to a `splunk_hec` sink's base URL. */
export const HEC_EVENT_PATH = '/services/collector/event';

/** The request of one batch to one sink: where, which body, which headers. */
export interface SinkRequest {
  url: URL;
  body: FetcherOptions['body'] & object;
  headers: Record<string, string>;
}

/** Splunk's URL for a sink's base URL (a trailing slash or the path itself already there are fine). */
export function hecUrl(base: string): URL {
  const url = new URL(base);
  if (!url.pathname.endsWith(HEC_EVENT_PATH)) url.pathname = `${url.pathname.replace(/\/+$/, '')}${HEC_EVENT_PATH}`;
  return url;
}

/**
 * `https`: the export lines exactly, as NDJSON, signed per Standard Webhooks with `webhook-id`
 * `<sink id>:<first seq>:<last seq>`. `splunk_hec`: one HEC event per line,
 * `{time: seconds, sourcetype: "ocsf", event}` (a checkpoint: sourcetype `ocsf:checkpoint`),
 * with `Authorization: Splunk <token>`.
 */
export function sinkRequest(sink: AuditSink, batch: SinkBatch, secret: string, now = new Date()): SinkRequest {
  if (sink.kind === 'https') {
    const data = Buffer.from(`${batch.serialised.join('\n')}\n`, 'utf8');
    const id = `${sink.id}:${batch.firstSeq}:${Math.max(batch.lastSeq, batch.checkpointSeq)}`;
    const signature = new Webhook(secret).sign(id, now, data);
    return {
      url: new URL(sink.url),
      body: { contentType: 'application/x-ndjson', data },
      headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature },
    };
  }
  const events = batch.lines.map((line) =>
    'checkpoint' in line
      ? { time: (line.checkpoint as { time: number }).time / 1000, sourcetype: 'ocsf:checkpoint', event: line }
      : { time: (line.time as number) / 1000, sourcetype: 'ocsf', event: line },
  );
  return {
    url: hecUrl(sink.url),
    body: { contentType: 'application/json', data: Buffer.from(events.map((e) => JSON.stringify(e)).join('\n'), 'utf8') },
    headers: { Authorization: `Splunk ${secret}` },
  };
}

/** Statuses a sink answers: 2xx accepted, 413 too large (the batch is halved). */
export const SINK_STATUSES = [...Array.from({ length: 100 }, (_, i) => 200 + i), 413];

export type SinkAnswer = Pick<FetchedDocument, 'status'>;
