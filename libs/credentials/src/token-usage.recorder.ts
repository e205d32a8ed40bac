import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** `last_used_at` is kept to this resolution: at most one write per token per interval. */
export const AGENT_TOKEN_USAGE_RESOLUTION_MS = 60_000;
/** How often pending uses are written, in one UPDATE. */
export const AGENT_TOKEN_USAGE_FLUSH_MS = 10_000;

/**
 * Records when agent tokens are used, off the request path: accepting a token only touches an
 * in-memory map; a timer (unref'd, so it never keeps the process alive) writes the pending uses
 * in one batched UPDATE, and the rest is written at shutdown. A token is written at most once a
 * minute: uses within a minute of its stored `last_used_at`, or of this process's last write,
 * are dropped. Several instances each follow the same rule against the stored value.
 */
@Injectable()
export class TokenUsageRecorder implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(TokenUsageRecorder.name);
  /** Token id → time of the first use not yet written. */
  private pending = new Map<string, Date>();
  /** Token id → the use time this process last wrote for it (pruned after a minute). */
  private readonly written = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), AGENT_TOKEN_USAGE_FLUSH_MS);
    this.timer.unref();
  }

  /** A token was accepted now; `storedLastUsedAt` is what the row held when it was read. */
  record(tokenId: string, storedLastUsedAt: Date | null, now = new Date()): void {
    const t = now.getTime();
    if (storedLastUsedAt && t - storedLastUsedAt.getTime() < AGENT_TOKEN_USAGE_RESOLUTION_MS) return;
    if (this.pending.has(tokenId)) return;
    const lastWrite = this.written.get(tokenId);
    if (lastWrite !== undefined && t - lastWrite < AGENT_TOKEN_USAGE_RESOLUTION_MS) return;
    this.pending.set(tokenId, now);
  }

  /** Writes every pending use in one statement. Concurrent calls share one flush. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }

  private async write(): Promise<void> {
    const now = Date.now();
    for (const [id, at] of this.written) if (now - at >= AGENT_TOKEN_USAGE_RESOLUTION_MS) this.written.delete(id);
    if (this.pending.size === 0 || !this.dataSource.isInitialized) return;
    const batch = this.pending;
    this.pending = new Map();
    const ids = [...batch.keys()];
    try {
      await this.dataSource.query(
        `UPDATE agent_tokens AS t SET last_used_at = u.used_at
           FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
          WHERE t.id = u.id AND (t.last_used_at IS NULL OR t.last_used_at < u.used_at)`,
        [ids, ids.map((id) => batch.get(id)!.toISOString())],
      );
      for (const [id, at] of batch) this.written.set(id, at.getTime());
    } catch (error) {
      // Usage times are best effort: a failed write is logged (ids only) and dropped.
      this.logger.warn(`could not record the use of ${ids.length} agent token(s): ${(error as Error).message}`);
    }
  }
}
