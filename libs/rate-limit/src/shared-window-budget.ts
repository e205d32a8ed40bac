import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { CleanupScheduler } from '@app/database';
import { RateLimitLeasesRepository } from './rate-limit-leases.repository';

/** A key's lease in the current window: what this instance may still spend from memory. */
interface Lease {
  remaining: number;
  /** The window's limit is all leased (by the instances together): nothing more to ask for. */
  exhausted: boolean;
  /** The grant in flight, if any (one per key at a time). */
  fetching?: Promise<void>;
}

/** A lease is this part of the limit (at least 1): every instance may leave about that much unspent. */
export const LEASE_SHARE = 50;

/**
 * Limits per key and fixed window (aligned on the clock) that hold across instances
 * (docs/operations.md, "Request limits"). Each instance leases parts of a window's limit from
 * the database (`rate_limit_leases`, one upsert that never grants past the limit) and spends
 * them from memory: a request whose key has lease left is decided without the database; the
 * next lease is asked for in the background once half of one is spent; a request waits for a
 * grant only when its key has none left (its first request of a window, or a burst). The
 * instances together therefore never admit more than the limit, and admit at least the limit
 * less what each holds unspent (under 1.5 leases of 1/50 of the limit). A key whose window is
 * all leased is refused from memory until the window ends.
 *
 * On the embedded database (one instance by construction) the whole limit is this process's:
 * counted in memory only.
 */
export class WindowBudget {
  private windowStart = 0;
  private readonly leases = new Map<string, Lease>();

  constructor(
    readonly name: string,
    readonly windowMs: number,
    private readonly repository: RateLimitLeasesRepository | undefined,
    private readonly logger: Logger,
  ) {}

  /**
   * Takes `n` of `key`'s `limit` in the current window: true when they fit (and are now spent),
   * false when they do not (nothing is spent). A promise only when a grant had to be awaited.
   */
  take(key: string, limit: number, n: number, now = Date.now()): boolean | Promise<boolean> {
    const start = now - (now % this.windowMs);
    if (start !== this.windowStart) {
      this.leases.clear();
      this.windowStart = start;
    }
    let lease = this.leases.get(key);
    if (!lease) {
      // Embedded: the whole limit is this instance's from the start.
      lease = this.repository ? { remaining: 0, exhausted: false } : { remaining: limit, exhausted: true };
      this.leases.set(key, lease);
    }
    if (lease.remaining >= n) {
      lease.remaining -= n;
      this.refill(key, lease, limit, start);
      return true;
    }
    if (lease.exhausted || n > limit) return false;
    return this.takeAfterGrants(key, lease, limit, n, start);
  }

  /** Gives back `n` taken from `key` in this window (the request was refused by another limit). */
  giveBack(key: string, n: number, now = Date.now()): void {
    const lease = this.leases.get(key);
    if (lease && now - (now % this.windowMs) === this.windowStart) lease.remaining += n;
  }

  /** Seconds until the current window ends (at least 1). */
  secondsLeft(now = Date.now()): number {
    return Math.max(1, Math.ceil((this.windowMs - (now % this.windowMs)) / 1000));
  }

  /** Keys with a lease in the current window. */
  get size(): number {
    return this.leases.size;
  }

  private async takeAfterGrants(key: string, lease: Lease, limit: number, n: number, start: number): Promise<boolean> {
    for (;;) {
      if (lease.remaining >= n) {
        lease.remaining -= n;
        this.refill(key, lease, limit, start);
        return true;
      }
      if (lease.exhausted) return false;
      if (!lease.fetching) this.startGrant(key, lease, limit, Math.max(leaseSize(limit), n - lease.remaining), start);
      await lease.fetching;
    }
  }

  /** Asks for the next lease in the background once half of one is spent. */
  private refill(key: string, lease: Lease, limit: number, start: number): void {
    if (lease.exhausted || lease.fetching || lease.remaining * 2 >= leaseSize(limit)) return;
    this.startGrant(key, lease, limit, leaseSize(limit), start);
  }

  private startGrant(key: string, lease: Lease, limit: number, ask: number, start: number): void {
    const fetching = this.repository!
      .grant(`${this.name}:${key}@${start}`, ask, limit, start + this.windowMs)
      .then((granted) => {
        lease.remaining += granted;
        if (granted < ask) lease.exhausted = true;
      })
      .finally(() => (lease.fetching = undefined));
    // A request waiting for it gets its failure (a 503 when the database is unavailable); a
    // background refill nobody waits for is retried by the next request. Either way the operator
    // hears of it: limits that cannot be counted across instances are worth a warning.
    fetching.catch((error: Error) => this.logger.warn(`lease for ${this.name} not granted: ${error.message}`));
    lease.fetching = fetching;
  }
}

function leaseSize(limit: number): number {
  return Math.max(1, Math.floor(limit / LEASE_SHARE));
}

/**
 * Makes the `WindowBudget`s (one per kind of limit) and deletes the ended windows' rows. Shared
 * through PostgreSQL when `DATABASE_URL` is set; in this process's memory on the embedded database.
 */
@Injectable()
export class SharedBudgets implements OnModuleInit {
  private readonly logger = new Logger('RateLimit');
  private readonly shared: boolean;

  constructor(
    config: AppConfig,
    private readonly repository: RateLimitLeasesRepository,
    private readonly scheduler: CleanupScheduler,
  ) {
    this.shared = config.databaseUrl !== undefined;
  }

  onModuleInit(): void {
    if (this.shared) this.scheduler.every('rate-limit-lease-cleanup', () => this.repository.deleteEnded(), this.logger);
  }

  /** A budget named `name` (its keys' prefix in the table) in fixed windows of `windowSeconds`. */
  create(name: string, windowSeconds: number): WindowBudget {
    return new WindowBudget(name, windowSeconds * 1000, this.shared ? this.repository : undefined, this.logger);
  }
}
