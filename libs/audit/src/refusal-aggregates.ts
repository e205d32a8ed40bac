import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AuditEventsRepository } from './audit-events.repository';
import { rowOf } from './audit.service';
import { FLUSH_MS } from './buffered-records';

/** A refused MCP request (401, 403 or 429), as the endpoint saw it. */
export interface McpRefusalSeen {
  /** The credential's organisation; null (the service's chain) when there is no valid credential. */
  organizationId: string | null;
  projectId?: string | null;
  /** The credential's id when there is one, else null: the address is the key. */
  credentialId: string | null;
  ip: string | null;
  status: 401 | 403 | 429;
  /** The refusal's stable code (`rate_limited`, `insufficient_scope`, `unrecognised_agent_token`, …). */
  reason: string;
}

/** An aggregate's minute has closed a little before it is sealed: late increments of other instances still land. */
export const AGGREGATE_SEAL_MARGIN_MS = 5_000;

/**
 * Refused MCP requests, counted per (chain, credential or address, reason, minute) in memory and
 * upserted into one record per key at most every `FLUSH_MS` (OCSF `count`), sealed once its
 * minute has closed: however many requests are refused, the table grows by one row per key and
 * minute (docs/audit.md, "Refusals").
 */
@Injectable()
export class RefusalAggregates implements OnApplicationShutdown {
  private readonly logger = new Logger(RefusalAggregates.name);
  private pending = new Map<string, { seen: McpRefusalSeen; minute: number; count: number }>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly events: AuditEventsRepository) {}

  refused(seen: McpRefusalSeen, now = Date.now()): void {
    const minute = now - (now % 60_000);
    const key = `${seen.organizationId ?? 'service'}|${seen.credentialId ?? seen.ip ?? 'unknown'}|${seen.status}|${seen.reason}|${minute}`;
    const entry = this.pending.get(key);
    if (entry) entry.count += 1;
    else this.pending.set(key, { seen, minute, count: 1 });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.entries()];
    this.pending = new Map();
    for (const [key, { seen, minute, count }] of batch) {
      // One id per key: every instance's increments of a minute land on the same row.
      const id = uuidOf(key);
      const row = rowOf({
        organizationId: seen.organizationId,
        projectId: seen.projectId ?? null,
        actorType: seen.credentialId ? 'agent_token' : 'anonymous',
        actorId: seen.credentialId,
        action: 'mcp.refused',
        metadata: { operation: 'POST /api/mcp', status: seen.status, reason: seen.reason, count, minute: new Date(minute).toISOString() },
        origin: { ip: seen.ip },
      });
      const event = { ...row.event, time: minute, metadata: { ...(row.event.metadata as object), uid: id } };
      this.writing = this.writing.then(() =>
        this.events
          .upsertAggregate({ ...row, id, time: minute, event }, count, new Date(minute + 60_000 + AGGREGATE_SEAL_MARGIN_MS))
          .catch((error: unknown) => this.logger.error(`refused-request counts could not be written: ${(error as Error).message}`)),
      );
    }
    return this.writing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}

/** A UUID (version 8, RFC 9562: custom) from SHA-256 of the aggregate's key. */
function uuidOf(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
