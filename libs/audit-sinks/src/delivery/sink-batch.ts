import type { ExportLine } from '@app/audit';

/** At most this many records in one body, and this many bytes (both halved on each 413). */
export const MAX_BATCH_LINES = 500;
export const MAX_BATCH_BYTES = 1024 * 1024;

/** One body's worth of export lines, with the `seq` range they cover. */
export interface SinkBatch {
  lines: ExportLine[];
  /** Each line serialised as the export writes it. */
  serialised: string[];
  firstSeq: number;
  /** The last record's `seq` (where the sink stands once the body is accepted). */
  lastSeq: number;
  /** The last checkpoint's `seq` among the lines (0: none). */
  checkpointSeq: number;
}

const seqOf = (line: ExportLine): number =>
  'checkpoint' in line ? (line.checkpoint as { seq: number }).seq : ((line.unmapped as { chain: { seq: number } }).chain.seq as number);

/**
 * Builds a batch: first the checkpoints signed after their record had gone out (`late`), then
 * records (each followed by its checkpoint, which never waits for the next batch) until `limit`
 * records or `limit / 500` MiB. Null when there is nothing to send.
 */
export async function nextBatch(late: ExportLine[], lines: AsyncIterable<ExportLine>, from: number, limit: number): Promise<SinkBatch | null> {
  const maxBytes = Math.max(1024, Math.floor((MAX_BATCH_BYTES * limit) / MAX_BATCH_LINES));
  const batch: SinkBatch = { lines: [], serialised: [], firstSeq: 0, lastSeq: from, checkpointSeq: 0 };
  let bytes = 0;
  let records = 0;
  const add = (line: ExportLine, text: string) => {
    const seq = seqOf(line);
    if (batch.lines.length === 0) batch.firstSeq = seq;
    batch.lines.push(line);
    batch.serialised.push(text);
    bytes += text.length + 1;
    if ('checkpoint' in line) batch.checkpointSeq = Math.max(batch.checkpointSeq, seq);
    else {
      batch.lastSeq = seq;
      records += 1;
    }
  };
  for (const line of late) add(line, JSON.stringify(line));
  for await (const line of lines) {
    const text = JSON.stringify(line);
    if (!('checkpoint' in line) && records > 0 && (records >= limit || bytes + text.length + 1 > maxBytes)) break;
    add(line, text);
  }
  return batch.lines.length === 0 ? null : batch;
}
