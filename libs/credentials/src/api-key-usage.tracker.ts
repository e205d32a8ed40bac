import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** At most one `last_used_at` write per key per this many milliseconds (per process). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Records when each `rk_` key was last used, off the request path: `touch` only notes the key in
 * memory; a write is scheduled at most once a minute per key and runs after the current request
 * has moved on, batching every key noted meanwhile into one UPDATE. A failed write is logged and
 * forgotten (the column is informational). Pending writes are flushed on shutdown.
 */
@Injectable()
export class ApiKeyUsageTracker implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ApiKeyUsageTracker.name);
  /** Key id → when its last write was scheduled. */
  private readonly lastScheduled = new Map<string, number>();
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {}

  touch(apiKeyId: string, now = Date.now()): void {
    const last = this.lastScheduled.get(apiKeyId);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastScheduled.set(apiKeyId, now);
    this.pending.set(apiKeyId, new Date(now));
    if (this.lastScheduled.size > 10_000) this.forgetOld(now);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), 0);
      this.timer.unref();
    }
  }

  /** Writes every pending timestamp now (also used by tests to observe the result). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.chain = this.chain.then(() => this.writePending());
    return this.chain;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const ids = [...batch.keys()];
    const times = ids.map((id) => batch.get(id)!.toISOString());
    try {
      await this.dataSource.query(
        `UPDATE api_keys AS k SET last_used_at = u.used_at
           FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
          WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.used_at)`,
        [ids, times],
      );
    } catch (error) {
      this.logger.warn(`could not record the use of ${ids.length} API key(s): ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  private forgetOld(now: number): void {
    for (const [id, at] of this.lastScheduled) {
      if (now - at >= LAST_USED_RESOLUTION_MS) this.lastScheduled.delete(id);
    }
  }
}
