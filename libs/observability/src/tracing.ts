import type { IncomingMessage } from 'node:http';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { Request } from 'express';
import { routeTemplate } from './request-observer';

/**
 * OpenTelemetry tracing with the official Node SDK: off unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, then spans of the HTTP server, Express and `pg`
 * (and the MCP spans of `libs/mcp`) are exported over OTLP/HTTP. The SDK's other `OTEL_*`
 * variables apply as documented by OpenTelemetry (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`,
 * `OTEL_EXPORTER_OTLP_HEADERS`, …); `OTEL_SDK_DISABLED=true` turns it off.
 *
 * The instrumentations patch `http`, `express` and `pg` as they are loaded, so `startTracing`
 * must run before anything requires them (`apps/gateway/src/instrumentation.ts`, the first
 * import of `main.ts`). Nothing of the SDK is loaded unless tracing is on: this file only
 * `require`s it inside `startTracing`.
 */

/** Requests whose spans would only be noise: probes and scrapes. */
const UNTRACED_PATHS = new Set(['/health/live', '/health/ready', '/metrics']);

/** The OTLP endpoint that turns tracing on, or undefined (tracing off). */
export function tracingEndpoint(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return endpoint || undefined;
}

/** What is wrong with the tracing variables, or undefined. */
export function tracingProblem(env: NodeJS.ProcessEnv): string | undefined {
  const endpoint = tracingEndpoint(env);
  if (endpoint === undefined) return undefined;
  const name = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `${name}: must be an http or https URL (the OTLP/HTTP collector)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${name}: must be an http or https URL (the OTLP/HTTP collector)`;
  return undefined;
}

/**
 * Starts the SDK when tracing is on and returns it (its `shutdown()` exports what is pending);
 * undefined when off.
 */
export function startTracing(env: NodeJS.ProcessEnv): NodeSDK | undefined {
  if (tracingEndpoint(env) === undefined) return undefined;
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } = require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const namedByEnvironment = Boolean(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    serviceName: namedByEnvironment ? undefined : 'agent-gateway',
    traceExporter: new OTLPTraceExporter(),
    // Traces only: metrics are Prometheus' (`/metrics`), logs go to standard output.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has(pathOf(req)),
        // As in the request log: the route's template, never the raw path (an unmatched path can
        // hold anything), and of a query string (a password-reset or invitation link carries a
        // secret) the parameters' names only.
        startIncomingSpanHook: (req) => ({ 'url.path': 'unmatched', ...(queryOf(req) ? { 'url.query': redactedQuery(queryOf(req)) } : {}) }),
        applyCustomAttributesOnSpan: (span, req) => {
          if (!('httpVersion' in req)) return; // an outgoing request's span: nothing to hide
          const request = req as Request & { requestId?: string };
          span.setAttribute('url.path', routeTemplate(request));
          if (request.requestId) span.setAttribute('agent_gateway.request.id', request.requestId);
        },
      }),
      // Route handlers only: a span for each of the dozen middlewares every request passes would
      // bury the handler's in noise.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Queries outside a request (migrations at start, periodic cleanups) make no lone traces.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return sdk;
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

function queryOf(req: IncomingMessage): string {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** `token=…&next=…` → `token=REDACTED&next=REDACTED`: which parameters came, never their values. */
export function redactedQuery(query: string): string {
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const name = pair.split('=')[0];
      return `${PLAIN_NAME.test(name) ? name : 'REDACTED'}=REDACTED`;
    })
    .join('&');
}
