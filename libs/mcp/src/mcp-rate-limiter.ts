import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { AgentPrincipal } from '@app/credentials';
import { Metrics } from '@app/observability';
import { echoableId, MCP_SERVER_ERROR } from './json-rpc';
import { McpRefusal } from './mcp-http.errors';

/**
 * Counts per key in fixed windows aligned on the clock (`[k·window, (k+1)·window)`). All counts
 * are dropped when a window ends, so memory holds only the keys seen in the current window.
 */
export class FixedWindowCounter {
  private windowStart = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one request for `key`; when it is over the limit, the seconds until the window ends. */
  take(key: string, now = Date.now()): number | undefined {
    const start = now - (now % this.windowMs);
    if (start !== this.windowStart) {
      this.counts.clear();
      this.windowStart = start;
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count > this.limit ? Math.max(1, Math.ceil((start + this.windowMs - now) / 1000)) : undefined;
  }

  /** Keys counted in the current window. */
  get size(): number {
    return this.counts.size;
  }
}

/**
 * Request limits on `/api/mcp` per agent token and per organisation (`MCP_RATE_LIMIT_*`), kept in
 * this process's memory so the hot path writes nothing: each instance counts the requests it
 * serves itself, so behind a load balancer spreading over N instances a token may make up to N
 * times the limit (docs/operations.md, "Request limits"). A request over a limit is refused with
 * 429, `Retry-After` and a JSON-RPC error, before the MCP SDK sees it. 0 turns a limit off.
 */
@Injectable()
export class McpRateLimiter {
  private readonly perToken: FixedWindowCounter | undefined;
  private readonly perOrganization: FixedWindowCounter | undefined;

  constructor(
    config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    const windowMs = config.mcpRateLimitWindowSeconds * 1000;
    const counter = (limit: number) => (limit > 0 ? new FixedWindowCounter(limit, windowMs) : undefined);
    this.perToken = counter(config.mcpRateLimitPerToken);
    this.perOrganization = counter(config.mcpRateLimitPerOrganization);
  }

  /** Counts the request against its token, then its organisation; throws the 429 refusal when either is over. */
  check(principal: AgentPrincipal, body: unknown): void {
    const now = Date.now();
    const byToken = this.perToken?.take(principal.tokenId, now);
    if (byToken !== undefined) this.refuse('token', this.perToken!.limit, byToken, body);
    const byOrganization = this.perOrganization?.take(principal.organizationId, now);
    if (byOrganization !== undefined) this.refuse('organization', this.perOrganization!.limit, byOrganization, body);
  }

  private refuse(scope: 'token' | 'organization', limit: number, retryAfterSeconds: number, body: unknown): never {
    for (const message of Array.isArray(body) ? body : [body]) {
      this.metrics.recordMcpCall((message as { method?: unknown } | null)?.method, undefined, 'rate_limited');
    }
    const who = scope === 'token' ? 'this token' : "this token's organisation";
    throw new McpRefusal(
      'rate_limited',
      MCP_SERVER_ERROR,
      `Too many requests for ${who}: at most ${limit} per window on this server; retry after ${retryAfterSeconds} s`,
      { id: echoableId(body), data: { code: 'rate_limited', limit: scope, retryAfterSeconds }, headers: { 'Retry-After': String(retryAfterSeconds) } },
    );
  }
}
