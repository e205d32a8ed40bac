import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createAgentToken, createProjectWithToken } from './factories';
import { GatewayProcess, startGatewayProcess } from './helpers/gateway-process';
import { connectClient } from './helpers/mcp';
import { freePort } from './helpers/postgres-server';
import { startTestApp, TestApp } from './helpers/test-app';
import { ClonedDatabase, cloneTemplateDatabase } from './helpers/template-database';
import { readTestState } from './helpers/test-state';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A W3C `traceparent` of a caller's span, with its ids. */
function callerSpan() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

function mcpPost(baseUrl: string, token: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': LEGACY,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const modernHeaders = (tool: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': tool });

/**
 * MCP spans through `@opentelemetry/api`, recorded by the official Node SDK into an in-memory
 * exporter in this process: one SERVER span per message, the caller's trace continued from the
 * `traceparent` header or from `params._meta` (SEP-414), outcomes, and no secret anywhere.
 */
describe('traces: MCP spans (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  let sdk: NodeSDK;
  let t: TestApp;
  let tenant: Awaited<ReturnType<typeof createProjectWithToken>>;

  beforeAll(async () => {
    sdk = new NodeSDK({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      instrumentations: [],
      metricReaders: [],
      logRecordProcessors: [],
      autoDetectResources: false,
    });
    sdk.start();
    t = await startTestApp();
    tenant = await createProjectWithToken(t.dataSource);
  });
  afterAll(async () => {
    await t?.close();
    await sdk?.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());

  const mcpSpans = () => exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === 'agent-gateway.mcp');
  const credential = () => ({
    'agent_gateway.credential.kind': 'agent',
    'agent_gateway.credential.source': 'oauth',
    'agent_gateway.credential.id': tenant.id,
    'agent_gateway.project.id': tenant.project.id,
    'agent_gateway.organization.id': tenant.organization.id,
  });
  function expectNoSecret(spans: ReadableSpan[], secrets: string[]) {
    const seen = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, links: s.links, events: s.events })));
    for (const secret of secrets) expect(seen).not.toContain(secret);
  }

  it('a tools/call continues the trace of the traceparent header, with method, tool, credential and project', async () => {
    const caller = callerSpan();
    const res = await mcpPost(t.baseUrl, tenant.token, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_project', arguments: {} } }, {
      traceparent: caller.traceparent,
    });
    expect(res.status).toBe(200);
    await res.text();
    const [span] = mcpSpans();
    expect(mcpSpans()).toHaveLength(1);
    expect(span.name).toBe('tools/call get_project');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(caller.traceId);
    expect(span.parentSpanContext?.spanId).toBe(caller.spanId);
    expect(span.parentSpanContext?.isRemote).toBe(true);
    expect(span.links).toEqual([]);
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_project',
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': LEGACY,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      ...credential(),
    });
    expectNoSecret(mcpSpans(), [tenant.token]);
  });

  it("an agent's records carry the call's trace id as OCSF metadata.correlation_uid (a write and a batched read)", async () => {
    const writer = callerSpan();
    const write = await mcpPost(t.baseUrl, tenant.token, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'create_task', arguments: { title: 'Traced' } } }, {
      traceparent: writer.traceparent,
    });
    expect(write.status).toBe(200);
    await write.text();
    const reader = callerSpan();
    const read = await mcpPost(t.baseUrl, tenant.token, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_tasks', arguments: {} } }, {
      traceparent: reader.traceparent,
    });
    expect(read.status).toBe(200);
    await read.text();
    // A read's record is buffered (written within 200 ms): polled for, up to 20 s on a loaded machine.
    const byTrace = async (traceId: string) => {
      for (const until = Date.now() + 20_000; Date.now() < until; ) {
        const rows: { action: string }[] = await t.dataSource.query(`SELECT action FROM audit_events WHERE event->'metadata'->>'correlation_uid' = $1`, [traceId]);
        if (rows.length > 0) return rows.map((r) => r.action);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return [];
    };
    expect(await byTrace(writer.traceId)).toEqual(['capability.create_task']);
    expect(await byTrace(reader.traceId)).toEqual(['tool.called']);
  });

  it("a traceparent in params._meta is the parent (SEP-414); the header's context is linked", async () => {
    const header = callerSpan();
    const meta = callerSpan();
    const res = await mcpPost(
      t.baseUrl,
      tenant.token,
      { jsonrpc: '2.0', id: 'm-1', method: 'tools/call', params: { name: 'list_tasks', arguments: {}, _meta: { ...MODERN_META, traceparent: meta.traceparent } } },
      { ...modernHeaders('list_tasks'), traceparent: header.traceparent },
    );
    expect(res.status).toBe(200);
    await res.text();
    const [span] = mcpSpans();
    expect(span.name).toBe('tools/call list_tasks');
    expect(span.spanContext().traceId).toBe(meta.traceId);
    expect(span.parentSpanContext?.spanId).toBe(meta.spanId);
    expect(span.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[header.traceId, header.spanId]]);
    expect(span.attributes).toMatchObject({ 'mcp.protocol.version': MODERN, 'jsonrpc.request.id': 'm-1', ...credential() });
    expectNoSecret(mcpSpans(), [tenant.token]);
  });

  it('without any traceparent the span starts a trace; a malformed _meta traceparent is ignored', async () => {
    const res = await mcpPost(t.baseUrl, tenant.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { traceparent: `00-${tenant.token}-zz-01` } },
    });
    expect(res.status).toBe(200);
    await res.text();
    const [span] = mcpSpans();
    expect(span.name).toBe('tools/list');
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.attributes).toMatchObject({ 'mcp.method.name': 'tools/list', ...credential() });
    expect(span.attributes['gen_ai.tool.name']).toBeUndefined();
    expectNoSecret(mcpSpans(), [tenant.token]);
  });

  it('a batch gets one span per message with its own parent and outcome (the SDK path)', async () => {
    const first = callerSpan();
    const second = callerSpan();
    const res = await mcpPost(
      t.baseUrl,
      tenant.token,
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_project', arguments: {}, _meta: { traceparent: first.traceparent } } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_task', arguments: { id: 42 }, _meta: { traceparent: second.traceparent } } },
      ],
      { 'mcp-protocol-version': '2025-03-26' },
    );
    expect(res.status).toBe(200);
    await res.text();
    const spans = mcpSpans().sort((a, b) => String(a.attributes['jsonrpc.request.id']).localeCompare(String(b.attributes['jsonrpc.request.id'])));
    expect(spans.map((s) => [s.name, s.parentSpanContext?.spanId, s.attributes['error.type']])).toEqual([
      ['tools/call get_project', first.spanId, undefined],
      ['tools/call get_task', second.spanId, '-32602'],
    ]);
    expect(spans[1].status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[1].attributes['rpc.response.status_code']).toBe('-32602');
  });

  it('a tool error, an unknown tool and a refusal are marked as errors', async () => {
    const missing = await mcpPost(t.baseUrl, tenant.token, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'get_task', arguments: { id: randomUUID() } },
    });
    expect(missing.status).toBe(200);
    expect(await missing.text()).toContain('"isError":true');
    const unknown = await mcpPost(t.baseUrl, tenant.token, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: tenant.token, arguments: {} },
    });
    expect(unknown.status).toBe(200);
    await unknown.text();
    const readOnly = await createAgentToken(t.dataSource, tenant.project, { permissions: ['project:read'] });
    const refused = await mcpPost(t.baseUrl, readOnly.token, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'create_task', arguments: { title: 'x' } },
    });
    expect(refused.status).toBe(403);
    const byId = new Map(mcpSpans().map((s) => [s.attributes['jsonrpc.request.id'], s]));
    expect(byId.get('3')).toMatchObject({ name: 'tools/call get_task', status: { code: SpanStatusCode.ERROR } });
    expect(byId.get('3')!.attributes['error.type']).toBe('tool_error');
    // An unregistered name is never copied into the span (it could be anything a client sends).
    expect(byId.get('4')).toMatchObject({ name: 'tools/call', status: { code: SpanStatusCode.ERROR } });
    expect(byId.get('4')!.attributes).toMatchObject({ 'gen_ai.tool.name': 'unknown', 'error.type': '-32602' });
    expect(byId.get('5')).toMatchObject({ name: 'tools/call create_task', status: { code: SpanStatusCode.ERROR } });
    expect(byId.get('5')!.attributes).toMatchObject({ 'error.type': '-32003', 'agent_gateway.credential.id': readOnly.id });
    expectNoSecret(mcpSpans(), [tenant.token, readOnly.token]);
  });

  it('the official MCP client: one span per message of its session', async () => {
    const connected = await connectClient(t.baseUrl, LEGACY, { authorization: `Bearer ${tenant.token}` });
    await connected.client.callTool({ name: 'get_project', arguments: {} });
    await connected.close();
    const names = mcpSpans().map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/call get_project']));
    expectNoSecret(mcpSpans(), [tenant.token]);
  });
});

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
  links?: { traceId: string; spanId: string }[];
  scope: string;
}

/** An OTLP/HTTP collector (JSON, as the SDK's exporter-trace-otlp-http sends): keeps every span and every body. */
function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; bodies: string[]; server: Server }> {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      bodies.push(body);
      if (req.url === '/v1/traces') {
        const parsed = JSON.parse(body) as { resourceSpans: { scopeSpans: { scope: { name: string }; spans: Omit<OtlpSpan, 'scope'>[] }[] }[] };
        for (const rs of parsed.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, scope: ss.scope.name });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, spans, bodies, server })));
}

const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
};

/**
 * The real entry point with `OTEL_EXPORTER_OTLP_ENDPOINT` set: the preload registers the SDK
 * before Express, pg and http load, and spans of all three plus the MCP spans reach an OTLP/HTTP
 * collector, in one trace that continues the caller's `traceparent`.
 */
describe('traces: the service exporting over OTLP/HTTP', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'ag-traces-'));
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let gateway: GatewayProcess;
  let database: ClonedDatabase | undefined;

  beforeAll(async () => {
    collector = await startCollector();
    const env: Record<string, string> = {
      DATA_DIR: join(cwd, 'data'),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const { postgres } = readTestState();
    if (postgres) {
      database = await cloneTemplateDatabase(postgres.port, 'traces');
      env.DATABASE_URL = database.url;
    }
    gateway = await startGatewayProcess(await freePort(), env);
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await new Promise((resolve) => collector?.server.close(resolve));
    await database?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  async function spansOfTrace(traceId: string, until: (spans: OtlpSpan[]) => boolean): Promise<OtlpSpan[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const spans = collector.spans.filter((s) => s.traceId === traceId);
      if (until(spans)) return spans;
      if (Date.now() > deadline) throw new Error(`trace ${traceId} incomplete: ${spans.map((s) => s.name).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('HTTP, Express, pg and MCP spans in the caller\'s trace; the _meta traceparent parents the MCP span; no secret exported', async () => {
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const signup = await fetch(`${gateway.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `trace-${randomUUID().slice(0, 8)}@example.test`, password, name: 'Tracy Trace', organizationName: 'Trace Ltd' }),
    });
    expect(signup.status).toBe(201);
    const { accessToken, organization } = (await signup.json()) as { accessToken: string; organization: { id: string } };
    const rest = (path: string, body: unknown) =>
      fetch(`${gateway.url}/api/organizations/${organization.id}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
    const project = await rest('/projects', { name: 'Traced' });
    expect(project.status).toBe(201);
    const key = await rest('/agent-service-keys', { name: 'tracer' });
    expect(key.status).toBe(201);
    const derived = await rest(`/agent-service-keys/${key.body.id}/tokens`, { projectId: project.body.id });
    expect(derived.status).toBe(201);
    const token = derived.body.token;

    const caller = callerSpan();
    const call = await mcpPost(gateway.url, token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_project', arguments: {} } }, {
      traceparent: caller.traceparent,
    });
    expect(call.status).toBe(200);
    await call.text();
    const spans = await spansOfTrace(caller.traceId, (s) => s.some((x) => x.scope === 'agent-gateway.mcp') && s.some((x) => x.scope.includes('pg')));
    const http = spans.find((s) => s.scope.includes('instrumentation-http'))!;
    expect(http).toMatchObject({ name: 'POST /api/mcp', kind: 2, parentSpanId: caller.spanId });
    expect(attr(http, 'http.route')).toBe('/api/mcp');
    const mcp = spans.find((s) => s.scope === 'agent-gateway.mcp')!;
    const handler = spans.find((s) => s.scope.includes('instrumentation-express') && attr(s, 'express.type') === 'request_handler')!;
    expect(handler).toMatchObject({ parentSpanId: http.spanId });
    expect(attr(handler, 'http.route')).toBe('/api/mcp');
    expect(mcp).toMatchObject({ name: 'tools/call get_project', kind: 2, parentSpanId: handler.spanId });
    expect(attr(mcp, 'agent_gateway.project.id')).toBe(project.body.id);
    expect(attr(mcp, 'agent_gateway.credential.id')).toBe(derived.body.id);
    expect(attr(mcp, 'agent_gateway.credential.source')).toBe('service_key');
    // The credential lookup runs before the MCP span (the guard), the tool's query under it. On
    // PostgreSQL the MCP limits hold across instances: the first request of a window leases a part
    // of the token's and the organisation's limits (two grants, under the handler, before the MCP
    // span); the embedded database counts in memory alone.
    const queries = spans.filter((s) => s.scope.includes('instrumentation-pg') && s.name.startsWith('pg.query'));
    const what = (q: (typeof spans)[number]) => {
      const text = String(attr(q, 'db.query.text'));
      return /FROM "agent_tokens"/.test(text) ? 'credential lookup' : /INTO rate_limit_leases/.test(text) ? 'limit lease' : 'other';
    };
    const leases = (process.env.TEST_DATABASE ?? 'embedded') === 'postgres' ? [[handler.spanId, 'limit lease'], [handler.spanId, 'limit lease']] : [];
    expect(queries.map((q) => [q.parentSpanId, what(q)])).toEqual([
      [handler.spanId, 'credential lookup'],
      ...leases,
      [mcp.spanId, 'other'],
    ]);

    const header = callerSpan();
    const meta = callerSpan();
    const viaMeta = await mcpPost(
      gateway.url,
      token,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_project', arguments: {}, _meta: { ...MODERN_META, traceparent: meta.traceparent } } },
      { ...modernHeaders('get_project'), traceparent: header.traceparent },
    );
    expect(viaMeta.status).toBe(200);
    await viaMeta.text();
    const isMcp = (x: OtlpSpan) => x.scope === 'agent-gateway.mcp';
    const isHandler = (x: OtlpSpan) => attr(x, 'express.type') === 'request_handler';
    const metaSpan = (await spansOfTrace(meta.traceId, (s) => s.some(isMcp))).find(isMcp)!;
    const handlerSpan = (await spansOfTrace(header.traceId, (s) => s.some(isHandler))).find(isHandler)!;
    expect(metaSpan).toMatchObject({ name: 'tools/call get_project', parentSpanId: meta.spanId });
    // The HTTP request's context (inside it, Express's request handler) is linked.
    expect(metaSpan.links?.map((l) => [l.traceId, l.spanId])).toEqual([[header.traceId, handlerSpan.spanId]]);

    // A secret in a query string reaches no attribute: only the parameter's name does; an
    // unmatched path is not copied either (the route template, as in the request log).
    const querySecret = randomBytes(16).toString('hex');
    const resetCaller = callerSpan();
    await (await fetch(`${gateway.url}/reset-password?token=${querySecret}`, { headers: { traceparent: resetCaller.traceparent } })).text();
    const strayCaller = callerSpan();
    await (await fetch(`${gateway.url}/no/such/${querySecret}`, { headers: { traceparent: strayCaller.traceparent } })).text();
    const isHttp = (x: OtlpSpan) => x.scope.includes('instrumentation-http');
    const resetSpan = (await spansOfTrace(resetCaller.traceId, (s) => s.some(isHttp))).find(isHttp)!;
    expect([attr(resetSpan, 'url.path'), attr(resetSpan, 'url.query')]).toEqual(['/reset-password', 'token=REDACTED']);
    const straySpan = (await spansOfTrace(strayCaller.traceId, (s) => s.some(isHttp))).find(isHttp)!;
    expect([straySpan.name, attr(straySpan, 'url.path'), attr(straySpan, 'http.response.status_code')]).toEqual(['GET', 'unmatched', 404]);
    const exported = collector.bodies.join('\n');
    for (const secret of [password, accessToken, token, querySecret]) expect(exported).not.toContain(secret);
  }, 60_000);
});
