import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { CleanupScheduler } from '@app/database';
import { RateLimitCountersRepository } from './rate-limit-counters.repository';

/** One counter: at most `limit` hits per fixed window of `windowSeconds`, which starts at the first hit. */
export interface RateLimitRule {
  /** Namespaced key, e.g. `login:ip:203.0.113.7`. Keep personal data out (hash it). */
  key: string;
  limit: number;
  windowSeconds: number;
}

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Fixed-window counters in the database (`rate_limit_counters`), so every instance of the
 * service shares them. `consume` counts a hit on every rule in one statement and says whether
 * all were still within their limit; because the hit is counted before the caller does the
 * work, parallel requests cannot slip past a limit together. Expired windows start over on the
 * next hit and are deleted by a periodic cleanup.
 */
@Injectable()
export class RateLimitService implements OnModuleInit {
  private readonly logger = new Logger('RateLimit');

  constructor(
    private readonly counters: RateLimitCountersRepository,
    private readonly scheduler: CleanupScheduler,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('rate-limit-cleanup', () => this.deleteExpired(), this.logger);
  }

  /**
   * Counts one hit on each rule. Refused when any rule is past its limit (the hit still counts);
   * `retryAfterSeconds` is when the last exceeded window ends (at least 1).
   */
  async consume(rules: RateLimitRule[]): Promise<RateLimitDecision> {
    if (rules.length === 0) return { allowed: true };
    // A fixed order of keys, so two statements touching the same rows never deadlock.
    const sorted = [...rules].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const rows = await this.counters.hit(
      sorted.map((r) => r.key),
      sorted.map((r) => r.windowSeconds),
    );
    // This hit is counted already: refused once the count has gone past the limit.
    return decide(sorted, rows, (hits, limit) => hits > limit);
  }

  /**
   * Whether every rule is still below its limit, without counting a hit: for limits that count
   * only failures, counted (`consume`) once a request has failed. Refused when a rule's live
   * window already holds `limit` hits. One read, no lock: requests checked at the same moment
   * all pass before any of their failures is counted, so such a limit can be overrun by the
   * requests in flight together.
   */
  async check(rules: RateLimitRule[]): Promise<RateLimitDecision> {
    if (rules.length === 0) return { allowed: true };
    const rows = await this.counters.live(rules.map((r) => r.key));
    // Nothing counted yet: refused once the limit is reached.
    return decide(rules, rows, (hits, limit) => hits >= limit);
  }

  /** Takes one hit back (the attempt turned out not to count, e.g. a successful login). */
  async release(key: string): Promise<void> {
    await this.counters.release(key);
  }

  /** Forgets a counter altogether. */
  async reset(key: string): Promise<void> {
    await this.counters.reset(key);
  }

  /** Deletes counters whose window has ended (they would start over anyway). Answers how many. */
  async deleteExpired(): Promise<number> {
    return this.counters.deleteExpired();
  }
}

/** Refused when a counter is over its rule's limit; `retryAfterSeconds` is when the last such window ends (at least 1, at most the window). */
function decide(
  rules: RateLimitRule[],
  rows: { key: string; hits: number; retry_after: number }[],
  over: (hits: number, limit: number) => boolean,
): RateLimitDecision {
  let retryAfter = 0;
  for (const row of rows) {
    const rule = rules.find((r) => r.key === row.key)!;
    if (over(row.hits, rule.limit)) retryAfter = Math.max(retryAfter, Math.min(rule.windowSeconds, Math.max(1, row.retry_after)));
  }
  return retryAfter > 0 ? { allowed: false, retryAfterSeconds: retryAfter } : { allowed: true };
}
