import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { AgentPrincipal } from '@app/credentials';
import { Metrics } from '@app/observability';
import { SharedBudgets, type WindowBudget } from '@app/rate-limit';
import { echoableId, MCP_SERVER_ERROR } from './json-rpc';
import { McpRefusal } from './mcp-http.errors';

/**
 * How many messages of a body count against the limits: each JSON-RPC request (a `method` and
 * an `id`), one by one in a batch; notifications and responses to the server do not count (they
 * run no tool and touch no database). A message that is not JSON-RPC at all counts as one (it
 * is answered with an error, which is work too).
 */
export function countedMessages(body: unknown): number {
  let n = 0;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      n++;
      continue;
    }
    const m = message as { method?: unknown; id?: unknown; result?: unknown; error?: unknown };
    if (typeof m.method === 'string') {
      if (m.id !== undefined) n++;
    } else if (!('result' in m) && !('error' in m)) {
      n++;
    }
  }
  return n;
}

/**
 * Whose budget a token spends: its grant's, not the access token's own, so that a refresh (a new
 * access token of the same OAuth grant) or a rotation (a new derived token of the same service
 * key and project) does not start a fresh budget.
 */
export function budgetKeyOf(principal: AgentPrincipal): string {
  if (principal.grantId) return `grant:${principal.grantId}`;
  if (principal.serviceKeyId) return `service-key:${principal.serviceKeyId}:${principal.projectId}`;
  return `token:${principal.tokenId}`;
}

/**
 * Request limits on `/api/mcp` per agent grant ("per token") and per organisation
 * (`MCP_RATE_LIMIT_*`), counted per JSON-RPC request message (`countedMessages`) and held across
 * instances (`SharedBudgets` of `@app/rate-limit`: leases of the window's limit from PostgreSQL,
 * spent from memory, so the hot path rarely waits for the database; in memory alone on the
 * embedded database). A request whose messages do not all fit is refused as a whole, before the
 * MCP SDK sees it, with 429, `Retry-After` and a JSON-RPC error; nothing of it is counted (a
 * request refused by its organisation's limit gives its messages back to the token's budget).
 * 0 turns a limit off.
 */
@Injectable()
export class McpRateLimiter {
  private readonly perToken: { limit: number; budget: WindowBudget } | undefined;
  private readonly perOrganization: { limit: number; budget: WindowBudget } | undefined;

  constructor(
    config: AppConfig,
    budgets: SharedBudgets,
    private readonly metrics: Metrics,
  ) {
    const windowSeconds = config.mcpRateLimitWindowSeconds;
    const limit = (name: string, value: number) => (value > 0 ? { limit: value, budget: budgets.create(name, windowSeconds) } : undefined);
    this.perToken = limit('mcp-token', config.mcpRateLimitPerToken);
    this.perOrganization = limit('mcp-organization', config.mcpRateLimitPerOrganization);
  }

  /**
   * Counts the request's messages against its grant, then its organisation; throws (or rejects
   * with) the 429 refusal when either is over. Synchronous unless a lease had to be awaited.
   */
  check(principal: AgentPrincipal, body: unknown): void | Promise<void> {
    const n = countedMessages(body);
    if (n === 0) return;
    const now = Date.now();
    const key = budgetKeyOf(principal);
    const byToken = this.perToken ? this.perToken.budget.take(key, this.perToken.limit, n, now) : true;
    if (byToken === true) return this.checkOrganization(principal, body, n, key);
    if (byToken === false) return this.refuse('token', body);
    return byToken.then((ok) => (ok ? this.checkOrganization(principal, body, n, key) : this.refuse('token', body)));
  }

  private checkOrganization(principal: AgentPrincipal, body: unknown, n: number, tokenKey: string): void | Promise<void> {
    if (!this.perOrganization) return;
    const byOrganization = this.perOrganization.budget.take(principal.organizationId, this.perOrganization.limit, n);
    if (byOrganization === true) return;
    const refused = () => {
      this.perToken?.budget.giveBack(tokenKey, n);
      this.refuse('organization', body);
    };
    if (byOrganization === false) return refused();
    return byOrganization.then((ok) => (ok ? undefined : refused()));
  }

  private refuse(scope: 'token' | 'organization', body: unknown): never {
    const { limit, budget } = (scope === 'token' ? this.perToken : this.perOrganization)!;
    const retryAfterSeconds = budget.secondsLeft();
    for (const message of Array.isArray(body) ? body : [body]) {
      this.metrics.recordMcpCall((message as { method?: unknown } | null)?.method, undefined, 'rate_limited');
    }
    const who = scope === 'token' ? 'this token' : "this token's organisation";
    throw new McpRefusal(
      'rate_limited',
      MCP_SERVER_ERROR,
      `Too many requests for ${who}: at most ${limit} per window; retry after ${retryAfterSeconds} s`,
      { id: echoableId(body), data: { code: 'rate_limited', limit: scope, retryAfterSeconds }, headers: { 'Retry-After': String(retryAfterSeconds) } },
    );
  }
}
