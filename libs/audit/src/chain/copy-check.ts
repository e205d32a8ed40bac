import { chainHash } from './chain-hash';
import { type Checkpoint, checkpointSignatureValid } from './checkpoint-signer';

/** What a sink's copy of a chain shows against the database (docs/audit.md, "A sink's copy"). */
export interface CopyVerdict {
  /** Records and checkpoints in the copy, and the `seq` range of its records. */
  records: number;
  checkpoints: number;
  firstSeq: number | null;
  lastSeq: number | null;
  /** The first problem found, or null when the database holds every record of the copy as it is. */
  problem: {
    firstBroken: number;
    reason: 'missing_in_database' | 'database_differs' | 'copy_hash_mismatch' | 'copy_checkpoint_invalid' | 'copy_unreadable';
    /** `missing_in_database`: the `seq` range the copy holds and the database does not. */
    gap?: { from: number; through: number };
    detail: string;
  } | null;
}

type CopyRecord = { hash: string; prevHash: string; line: Record<string, unknown> };

/**
 * Reads a copy: NDJSON lines as an https sink receives them (export lines), or as Splunk HEC
 * events (`{"time", "sourcetype", "event": <export line>}`); a repeated `seq` is the same line again.
 */
export function parseCopy(text: string): { records: Map<number, CopyRecord>; checkpoints: Map<number, Checkpoint> } | { unreadable: string } {
  const records = new Map<number, CopyRecord>();
  const checkpoints = new Map<number, Checkpoint>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(lines[i]) as Record<string, unknown>;
    } catch {
      return { unreadable: `line ${i + 1} is not JSON` };
    }
    if (typeof line.sourcetype === 'string' && line.event && typeof line.event === 'object') line = line.event as Record<string, unknown>;
    if (line.checkpoint && typeof line.checkpoint === 'object') {
      const checkpoint = line.checkpoint as Checkpoint;
      checkpoints.set(checkpoint.seq, checkpoint);
      continue;
    }
    const link = (line.unmapped as { chain?: { seq?: unknown; prevHash?: unknown; hash?: unknown } } | undefined)?.chain;
    if (!link || typeof link.seq !== 'number' || typeof link.hash !== 'string' || typeof link.prevHash !== 'string') {
      return { unreadable: `line ${i + 1} is neither an export line (unmapped.chain) nor a checkpoint` };
    }
    records.set(link.seq, { hash: link.hash, prevHash: link.prevHash, line });
  }
  return { records, checkpoints };
}

/**
 * Checks a copy on its own (each record's hash, each link to a record the copy also holds, each
 * checkpoint's signature and hash), then against the database's records after its anchor
 * (`hashOf`): a record or checkpoint of the copy past the database's head is a gap, a different
 * hash a rewrite. Records at or before `anchorSeq` were removed by retention and are not asked for.
 */
export function checkCopy(
  chain: string,
  text: string,
  database: { hashOf: Map<number, string>; headSeq: number; anchorSeq: number; keys: Map<string, string> },
): CopyVerdict {
  const parsed = parseCopy(text);
  if ('unreadable' in parsed) return { records: 0, checkpoints: 0, firstSeq: null, lastSeq: null, problem: { firstBroken: 0, reason: 'copy_unreadable', detail: parsed.unreadable } };
  const { records, checkpoints } = parsed;
  const seqs = [...records.keys()].sort((a, b) => a - b);
  const verdict: CopyVerdict = { records: seqs.length, checkpoints: checkpoints.size, firstSeq: seqs[0] ?? null, lastSeq: seqs[seqs.length - 1] ?? null, problem: null };
  for (const seq of seqs) {
    const record = records.get(seq)!;
    const { chain: _link, ...unmapped } = record.line.unmapped as Record<string, unknown>;
    const before = records.get(seq - 1);
    if (chainHash({ ...record.line, unmapped }, seq, record.prevHash) !== record.hash || (before && before.hash !== record.prevHash)) {
      verdict.problem = { firstBroken: seq, reason: 'copy_hash_mismatch', detail: `the copy's record ${seq} does not hold its own hash or link: the copy cannot be relied on from there` };
      return verdict;
    }
  }
  for (const checkpoint of [...checkpoints.values()].sort((a, b) => a.seq - b.seq)) {
    const key = database.keys.get(checkpoint.keyId);
    const covered = records.get(checkpoint.seq);
    if (!key || !checkpointSignatureValid(chain, checkpoint, key) || (covered && covered.hash !== checkpoint.hash)) {
      verdict.problem = { firstBroken: checkpoint.seq, reason: 'copy_checkpoint_invalid', detail: `the copy's checkpoint at ${checkpoint.seq} is not signed by a key of this service, or does not match its record` };
      return verdict;
    }
  }
  const missing: number[] = [];
  for (const seq of seqs) {
    if (seq <= database.anchorSeq) continue;
    const hash = database.hashOf.get(seq);
    if (hash === undefined) missing.push(seq);
    else if (hash !== records.get(seq)!.hash) {
      verdict.problem = { firstBroken: seq, reason: 'database_differs', detail: `record ${seq} in the database is not the one the sink received: it was rewritten` };
      return verdict;
    }
  }
  const lastCheckpoint = [...checkpoints.keys()].reduce((a, b) => Math.max(a, b), 0);
  if (lastCheckpoint > database.headSeq && !records.has(lastCheckpoint)) missing.push(lastCheckpoint);
  if (missing.length > 0) {
    const from = missing.reduce((a, b) => Math.min(a, b));
    const through = missing.reduce((a, b) => Math.max(a, b));
    verdict.problem = {
      firstBroken: from,
      reason: 'missing_in_database',
      gap: { from, through },
      detail: `the sink received records ${from} through ${through}, which the database no longer holds`,
    };
  }
  return verdict;
}
