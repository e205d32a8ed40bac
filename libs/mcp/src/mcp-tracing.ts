import type { IncomingHttpHeaders } from 'node:http';
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Link,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { BAGGAGE_META_KEY, TRACEPARENT_META_KEY, TRACESTATE_META_KEY } from '@modelcontextprotocol/server';
import { DomainError } from '@app/common';
import type { AgentPrincipal } from '@app/credentials';
import { type McpOutcome, mcpMethodName } from '@app/observability';
import { McpRefusal } from './mcp-http.errors';
import { isSupportedProtocolVersion } from './protocol-versions';

/**
 * One OpenTelemetry span per MCP message (the semantic conventions for MCP servers): named
 * `tools/call get_task` or `tools/list`, kind SERVER, with the method, the tool, the JSON-RPC id,
 * the protocol version, and who called: the credential's kind, source and id and the project and
 * organisation it is bound to. Never a token, argument or result.
 *
 * The parent is the caller's context: the `traceparent` (and `tracestate`, `baggage`) in the
 * message's `params._meta` (SEP-414) when present, the surrounding HTTP request's span otherwise
 * (which itself continues the request's `traceparent` header), or that header directly when no
 * HTTP instrumentation runs. When `_meta` gives the parent, the HTTP request's span is linked.
 *
 * Only `@opentelemetry/api` is used: without a registered SDK (tracing off, the default) every
 * call here is the API's no-op and nothing is recorded.
 */
const tracer = trace.getTracer('agent-gateway.mcp');
/** The spans of the request being dispatched, by JSON-RPC id, for outcomes known deep inside it. */
const SPANS_BY_ID = createContextKey('agent-gateway.mcp.spans');
const META_KEYS = [TRACEPARENT_META_KEY, TRACESTATE_META_KEY, BAGGAGE_META_KEY] as const;
const MAX_ID_LENGTH = 128;

interface McpHttpRequest {
  headers: IncomingHttpHeaders;
  body: unknown;
  principal?: { kind: string };
}

export class McpTrace {
  private constructor(
    private readonly spans: { span: Span; id: unknown }[],
    private readonly context: Context,
  ) {}

  /** Starts the spans of one POST to `/api/mcp`; `isTool` tells a registered tool's name from any other text. */
  static start(req: McpHttpRequest, isTool: (name: string) => boolean): McpTrace {
    const active = context.active();
    // Under the HTTP instrumentation the request's span is active already; without it, the header.
    const ambient = trace.getSpan(active) ? active : propagation.extract(active, req.headers);
    const principal = req.principal?.kind === 'agent' ? (req.principal as AgentPrincipal) : undefined;
    const version = req.headers['mcp-protocol-version'];
    const shared: Attributes = {
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      ...(typeof version === 'string' && isSupportedProtocolVersion(version) ? { 'mcp.protocol.version': version } : {}),
      ...(principal ? credentialAttributes(principal) : {}),
    };
    const messages = Array.isArray(req.body) ? req.body : [req.body];
    const spans = messages.map((message) => ({ span: startSpan(message, ambient, shared, isTool), id: idOf(message) }));
    if (!spans.some(({ span }) => span.isRecording())) return new McpTrace([], active);
    // A single message's span is the parent of what runs for it (queries); a batch's share the request's.
    const base = spans.length === 1 ? trace.setSpan(active, spans[0].span) : active;
    return new McpTrace(spans, base.setValue(SPANS_BY_ID, spans));
  }

  /** Runs the dispatch with this trace's context active. */
  run<T>(fn: () => T): T {
    return this.spans.length ? context.with(this.context, fn) : fn();
  }

  /** Ends every span: an HTTP status of 400 or more marks those not already marked as failed. */
  end(status: number): void {
    for (const { span } of this.spans) {
      if (status >= 400 && !failed.has(span)) markFailed(span, String(status));
      span.end();
    }
  }

  /**
   * Ends every span for a request refused before or outside the SDK: a refusal's JSON-RPC code, a
   * domain error's stable code (their messages name no secret); anything else is not described.
   */
  fail(error: unknown): void {
    const rpcCode = error instanceof McpRefusal ? error.rpcCode : undefined;
    const type = rpcCode !== undefined ? String(rpcCode) : error instanceof DomainError ? error.code : 'internal_error';
    const message = error instanceof McpRefusal || error instanceof DomainError ? error.message : undefined;
    for (const { span } of this.spans) {
      markFailed(span, type, message, rpcCode);
      span.end();
    }
  }
}

/**
 * Records a `tools/call` outcome known inside the dispatch on the span of the message with this
 * JSON-RPC id: a tool error (`isError` result), or the JSON-RPC error code it was answered with.
 */
export function recordToolOutcome(id: unknown, outcome: McpOutcome | number): void {
  if (outcome === 'ok') return;
  const spans = context.active().getValue(SPANS_BY_ID) as { span: Span; id: unknown }[] | undefined;
  const key = idOf({ id });
  const span = spans?.find((s) => s.id === key)?.span;
  if (!span) return;
  if (typeof outcome === 'number') markFailed(span, String(outcome), undefined, outcome);
  else markFailed(span, outcome);
}

/** Spans already given their error, so the HTTP status does not overwrite a more precise one. */
const failed = new WeakSet<Span>();

function markFailed(span: Span, type: string, message?: string, rpcCode?: number): void {
  failed.add(span);
  span.setAttribute('error.type', type);
  if (rpcCode !== undefined) span.setAttribute('rpc.response.status_code', String(rpcCode));
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

function startSpan(message: unknown, ambient: Context, shared: Attributes, isTool: (name: string) => boolean): Span {
  const { method, params } = (message !== null && typeof message === 'object' ? message : {}) as { method?: unknown; params?: unknown };
  const methodName = mcpMethodName(method);
  const name = methodName === 'tools/call' ? (params as { name?: unknown } | undefined)?.name : undefined;
  const tool = typeof name === 'string' && isTool(name) ? name : undefined;
  const id = idOf(message);
  const attributes: Attributes = {
    'mcp.method.name': methodName,
    ...(methodName === 'tools/call' ? { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool ?? 'unknown' } : {}),
    ...(id !== undefined ? { 'jsonrpc.request.id': id } : {}),
    ...shared,
  };
  const parent = propagation.extract(ambient, metaCarrier(params));
  const fromMeta = trace.getSpan(parent) !== trace.getSpan(ambient);
  const ambientSpan = trace.getSpan(ambient)?.spanContext();
  const links: Link[] = fromMeta && ambientSpan ? [{ context: ambientSpan }] : [];
  return tracer.startSpan(tool ? `${methodName} ${tool}` : methodName, { kind: SpanKind.SERVER, attributes, links }, parent);
}

/** The SEP-414 keys of `params._meta`, string values only: nothing else of the message is read. */
function metaCarrier(params: unknown): Record<string, string> {
  const meta = params !== null && typeof params === 'object' ? (params as { _meta?: unknown })._meta : undefined;
  const carrier: Record<string, string> = {};
  if (meta === null || typeof meta !== 'object') return carrier;
  for (const key of META_KEYS) {
    const value = (meta as Record<string, unknown>)[key];
    if (typeof value === 'string') carrier[key] = value;
  }
  return carrier;
}

/** The JSON-RPC id as the attribute holds it (absent for a notification, null, or an over-long id). */
function idOf(message: unknown): string | undefined {
  const id = message !== null && typeof message === 'object' ? (message as { id?: unknown }).id : undefined;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return typeof id === 'string' && id.length <= MAX_ID_LENGTH ? id : undefined;
}

function credentialAttributes(principal: AgentPrincipal): Attributes {
  return {
    'agent_gateway.credential.kind': principal.kind,
    'agent_gateway.credential.source': principal.source,
    'agent_gateway.credential.id': principal.tokenId,
    'agent_gateway.project.id': principal.projectId,
    'agent_gateway.organization.id': principal.organizationId,
  };
}
