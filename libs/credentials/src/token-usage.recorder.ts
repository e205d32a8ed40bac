import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AgentTokenLookup, ApiKeyStore } from '@app/credential-store';

/** `last_used_at` is kept to this resolution: at most one write per credential per interval. */
export const AGENT_TOKEN_USAGE_RESOLUTION_MS = 60_000;
/** How often pending uses are written, in one UPDATE. */
export const AGENT_TOKEN_USAGE_FLUSH_MS = 10_000;

/**
 * Records when credentials are used, off the request path: accepting one only touches an
 * in-memory map; a timer (unref'd, so it never keeps the process alive) writes the pending uses
 * in one batched UPDATE, and the rest is written at shutdown. A credential is written at most
 * once a minute: uses within a minute of its stored `last_used_at`, or of this process's last
 * write, are dropped. Several instances each follow the same rule against the stored value.
 * Usage times are informational: a failed write is logged (count only) and dropped.
 */
abstract class LastUsedRecorder implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(this.constructor.name);
  /** Credential id → time of the first use not yet written. */
  private pending = new Map<string, Date>();
  /** Credential id → the use time this process last wrote for it (pruned after a minute). */
  private readonly written = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** The write after the one under way, shared by the calls made meanwhile. */
  private next: Promise<void> | undefined;

  protected constructor(
    private readonly dataSource: DataSource,
    private readonly store: { recordUses(uses: Map<string, Date>): Promise<void> },
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), AGENT_TOKEN_USAGE_FLUSH_MS);
    this.timer.unref();
  }

  /** A credential was accepted now; `storedLastUsedAt` is what its row held when read, if known. */
  record(id: string, storedLastUsedAt: Date | null = null, now = new Date()): void {
    const t = now.getTime();
    if (storedLastUsedAt && t - storedLastUsedAt.getTime() < AGENT_TOKEN_USAGE_RESOLUTION_MS) return;
    if (this.pending.has(id)) return;
    const lastWrite = this.written.get(id);
    if (lastWrite !== undefined && t - lastWrite < AGENT_TOKEN_USAGE_RESOLUTION_MS) return;
    this.pending.set(id, now);
  }

  /**
   * Writes every pending use in one statement: once it resolves, every use recorded before the
   * call is written. A call while a write is under way (the timer's, say) waits for it and then
   * writes what was recorded since, which that write had not taken; calls meanwhile share that
   * next write.
   */
  flush(): Promise<void> {
    if (this.next) return this.next;
    if (!this.flushing) {
      this.flushing = this.write().finally(() => (this.flushing = undefined));
      return this.flushing;
    }
    const next = this.flushing.then(() => {
      this.next = undefined;
      return this.flush();
    });
    this.next = next;
    return next;
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
      await this.store.recordUses(batch);
      for (const [id, at] of batch) this.written.set(id, at.getTime());
    } catch (error) {
      this.logger.warn(`could not record the use of ${ids.length} credential(s): ${(error as Error).message}`);
    }
  }
}

/** `last_used_at` of agent tokens (OAuth access tokens and derived project tokens). */
@Injectable()
export class TokenUsageRecorder extends LastUsedRecorder {
  constructor(dataSource: DataSource, tokens: AgentTokenLookup) {
    super(dataSource, tokens);
  }
}

/** `last_used_at` of scoped `rk_` API keys. */
@Injectable()
export class ApiKeyUsageRecorder extends LastUsedRecorder {
  constructor(dataSource: DataSource, keys: ApiKeyStore) {
    super(dataSource, keys);
  }
}
