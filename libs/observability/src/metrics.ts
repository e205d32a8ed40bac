import { Injectable, Optional } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'notifications/initialized',
  'notifications/cancelled',
]);

/** An MCP message's method as metrics and traces name it: one of the protocol's names, else `other`. */
export function mcpMethodName(method: unknown): string {
  return typeof method === 'string' && MCP_METHODS.has(method) ? method : 'other';
}

/** The outcome of one MCP message. */
export type McpOutcome = 'ok' | 'error' | 'refused' | 'rate_limited' | 'tool_error' | 'invalid_arguments' | 'unknown_tool';

/** The form of the credential a refused request presented (`none`: it presented none). */
export type CredentialKindLabel = 'agent_token' | 'api_key' | 'session_jwt' | 'scim_token' | 'unrecognised' | 'none';
export type RefusalReason = 'missing' | 'malformed' | 'conflict' | 'invalid' | 'forbidden' | 'not_found' | 'error';

/** The pg pool inside TypeORM's postgres driver: only the counters it keeps. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * The service's Prometheus metrics, in a registry of its own (one per application, so test
 * applications in one process never share counts). Every label is a route template or a name
 * from a fixed list: a value from the request itself becomes `other`, so no client can grow the
 * number of series.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests = new Counter({
    name: 'agent_gateway_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'agent_gateway_http_request_duration_seconds',
    help: 'Time from the request to the end of its answer, by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly mcpCalls = new Counter({
    name: 'agent_gateway_mcp_calls_total',
    help: 'MCP messages handled, by JSON-RPC method, tool (tools/call only) and outcome',
    labelNames: ['method', 'tool', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly credentialRefusals = new Counter({
    name: 'agent_gateway_credential_refusals_total',
    help: 'Requests refused by the credential guard, by credential kind presented and reason',
    labelNames: ['kind', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly revocations = new Counter({
    name: 'agent_gateway_revocations_total',
    help: 'Revocations recorded in the audit trail, by what was revoked',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly auditSinkLag = new Gauge({
    name: 'agent_gateway_audit_sink_lag_records',
    help: 'Sealed audit records not yet delivered, the most behind sink of each kind among the organisations this instance delivers',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly idpFailures = new Counter({
    name: 'agent_gateway_idp_failures_total',
    help: 'Identity providers that could not be reached or read at a sign-in or an ID-JAG trade, by what was fetched (discovery, jwks, token) and stage (sign_in, id_jag); the issuer is logged, never a label',
    labelNames: ['kind', 'stage'] as const,
    registers: [this.registry],
  });

  constructor(@Optional() dataSource?: DataSource) {
    collectDefaultMetrics({ register: this.registry, prefix: 'agent_gateway_' });
    const pool = () => (dataSource?.isInitialized ? (dataSource.driver as unknown as { master?: PoolCounts }).master : undefined);
    const gauge = (name: string, help: string, read: (p: PoolCounts) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const p = pool();
          this.set(p ? read(p) : 0);
        },
      });
    gauge('agent_gateway_db_pool_connections', 'Connections open in the database pool', (p) => p.totalCount);
    gauge('agent_gateway_db_pool_idle_connections', 'Idle connections in the database pool', (p) => p.idleCount);
    gauge('agent_gateway_db_pool_waiting_requests', 'Queries waiting for a pooled connection', (p) => p.waitingCount);
  }

  recordHttp(method: string, route: string, status: number, seconds: number): void {
    const m = HTTP_METHODS.has(method) ? method : 'OTHER';
    this.httpRequests.inc({ method: m, route, status: String(status) });
    this.httpDuration.observe({ method: m, route }, seconds);
  }

  /** `tool` must be a registered tool's name (or omitted): callers pass `unknown` for anything else. */
  recordMcpCall(method: unknown, tool: string | undefined, outcome: McpOutcome): void {
    const m = mcpMethodName(method);
    this.mcpCalls.inc({ method: m, tool: m === 'tools/call' ? (tool ?? 'unknown') : '', outcome });
  }

  recordCredentialRefusal(kind: CredentialKindLabel, reason: RefusalReason): void {
    this.credentialRefusals.inc({ kind, reason });
  }

  recordRevocation(kind: 'service_key' | 'project_token' | 'api_key' | 'grant' | 'refresh_token_reuse'): void {
    this.revocations.inc({ kind });
  }

  recordIdpFailure(kind: 'discovery' | 'jwks' | 'token', stage: 'sign_in' | 'id_jag'): void {
    this.idpFailures.inc({ kind, stage });
  }

  /** After a delivery round: the largest lag of the sinks of one kind (`https`, `splunk_hec`, `otlp`). */
  setAuditSinkLag(kind: 'https' | 'splunk_hec' | 'otlp', records: number): void {
    this.auditSinkLag.set({ kind }, records);
  }

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
