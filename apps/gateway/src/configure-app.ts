import { INestApplication, Logger } from '@nestjs/common';
import { ApplicationConfig, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import cookieParser from 'cookie-parser';
import type { NextFunction, Request, Response } from 'express';
import express, { json, urlencoded } from 'express';
import { exceedsJsonDepth, MAX_JSON_DEPTH, restErrorBody } from '@app/common';
import { AppConfig } from '@app/config';
import { type AuthenticatedRequest, CredentialGuard, requireScimTokenResolver } from '@app/credentials';
import { NotFoundPage } from '@app/dashboard';
import { Readiness } from '@app/health';
import { JSON_RPC_INVALID_REQUEST, JSON_RPC_PARSE_ERROR, jsonRpcError, McpEndpoint } from '@app/mcp';
import { METRICS_PATH, Metrics, metricsEndpoint, observeRequests } from '@app/observability';
import { isScimPath, sendScimError } from '@app/scim';
import { AppExceptionFilter } from './app-exception.filter';
import { AppModule, AppModuleOptions } from './app.module';
import { corsOptionsDelegate, isMcpPath, MCP_PATH, mcpOriginCheck } from './cors.middleware';
import { GatewayExpressAdapter } from './gateway-express-adapter';
import { closeConnectionsWhenDraining } from './graceful-shutdown';
import { createLogger, createRequestLog } from './logger';
import { agentCheckFirst, type Middleware, mcpRoute } from './mcp-route';
import { McpRouteEnhancers } from './mcp-route-enhancers';
import { textGuard } from './text-guard.middleware';
import { markSessionOnlyOperations } from './openapi-session-only';

/** Largest request body accepted anywhere (SPEC §3: over 1 MiB → 413). */
export const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPES = ['application/json', 'application/*+json'];

/** Builds the application exactly as `main.ts` runs it; e2e tests use this too. */
export async function createGatewayApp(config: AppConfig, options: AppModuleOptions = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, options), new GatewayExpressAdapter(strictServer()), {
    bodyParser: false,
    logger: createLogger(config.logLevel),
    abortOnError: false,
  });
  configureApp(app, config);
  return app;
}

/**
 * The Express instance, with case-sensitive and strict routing set before its router exists
 * (Nest's adapter creates the router in its constructor, so `app.set` afterwards is too late):
 * `/API/MCP` or `/api/mcp/` is no route, so no path reaches a handler that the checks keyed on
 * the exact path (the `/api/mcp` Origin check) did not see.
 */
function strictServer(): express.Express {
  const server = express();
  server.set('case sensitive routing', true);
  server.set('strict routing', true);
  return server;
}

export function configureApp(app: NestExpressApplication, config: AppConfig): INestApplication {
  requireScimTokenResolver(app);
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.use(observeRequests(app.get(Metrics), createRequestLog(config.logLevel)));
  if (config.metricsToken) app.use(METRICS_PATH, metricsEndpoint(app.get(Metrics), config.metricsToken));
  app.use(closeConnectionsWhenDraining(app.get(Readiness)));
  app.use(mcpOriginCheck(config));
  app.enableCors(corsOptionsDelegate(config));
  const enhancers = new McpRouteEnhancers(app.get(ApplicationConfig), app.get(CredentialGuard), new AppExceptionFilter(config, app.get(NotFoundPage)), app.get(McpEndpoint));
  // A 401 answered here is counted in the audit trail's refusal aggregates, as the endpoint counts the rest.
  const endpoint = app.get(McpEndpoint);
  const layers = requestMiddleware(agentCheckFirst(app.get(CredentialGuard), enhancers, (refusal, req) => endpoint.countRefusal(refusal, req as AuthenticatedRequest)));
  // POST /api/mcp itself is served here, by the same layers as below, ahead of Nest's routes.
  const server = app.getHttpAdapter().getInstance() as express.Express;
  server.post(MCP_PATH, mcpRoute(app.get(McpEndpoint), enhancers, layersFor(MCP_PATH, layers)));
  for (const layer of layers) {
    if (layer.path === undefined) app.use(layer.handle);
    else app.use(layer.path, layer.handle);
  }
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Agent Gateway')
      .setDescription('REST surface for administrators (server-to-server). Agents use the MCP endpoint at /api/mcp.')
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Session JWT or rk_ API key' })
      .build(),
  );
  markSessionOnlyOperations(app, document);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs/openapi.json' });
  return app;
}

/**
 * Body-parser failures, answered before any route: on the MCP endpoint as JSON-RPC errors
 * (malformed JSON → 400 `-32700`; too large → 413 `-32600`), under `/scim/v2` as SCIM errors,
 * elsewhere in the REST shape.
 * Never a 500.
 */
function bodyErrorHandler(err: unknown, req: Request, res: Response, next: NextFunction): void {
  const e = err as { type?: string; status?: number; message?: string };
  if (!e || typeof e.type !== 'string') return next(err);
  const tooLarge = e.type === 'entity.too.large';
  const malformed = e.type === 'entity.parse.failed';
  const status = tooLarge ? 413 : e.status && e.status >= 400 && e.status < 500 ? e.status : 400;
  const message = tooLarge
    ? `Request body exceeds ${MAX_BODY_BYTES} bytes`
    : malformed
      ? 'Malformed JSON in request body'
      : (e.message ?? 'Unreadable request body');
  if (isMcpPath(req.path)) {
    const rpcMessage = malformed ? 'Parse error: the request body is not valid JSON' : message;
    res
      .status(status)
      .setHeader('Cache-Control', 'no-store')
      .json(jsonRpcError(null, malformed ? JSON_RPC_PARSE_ERROR : JSON_RPC_INVALID_REQUEST, rpcMessage));
    return;
  }
  if (isScimPath(req.path)) return sendScimError(res, status, message, malformed ? 'invalidSyntax' : undefined);
  res.status(status).json(restErrorBody(status, message));
}

/**
 * Refuses a parsed body nested deeper than `MAX_JSON_DEPTH` before any validator, guard or the
 * MCP SDK walks it recursively (a deep enough body would otherwise overflow the stack: a 500).
 */
function bodyDepthGuard(req: Request, res: Response, next: NextFunction): void {
  if (!exceedsJsonDepth(req.body)) return next();
  const message = `Request body nests deeper than ${MAX_JSON_DEPTH} levels`;
  if (isMcpPath(req.path)) {
    res.status(400).setHeader('Cache-Control', 'no-store').json(jsonRpcError(null, JSON_RPC_INVALID_REQUEST, `Invalid Request: ${message}`));
    return;
  }
  if (isScimPath(req.path)) return sendScimError(res, 400, message, 'invalidSyntax');
  res.status(400).json(restErrorBody(400, message));
}

/** One layer of the application's middleware: `app.use(path, handle)`, or `app.use(handle)` without a path. */
export interface MiddlewareLayer {
  readonly path?: string;
  readonly handle: Middleware;
}

/**
 * The application's middleware after the origin checks and CORS, in order: the one list that
 * both MCP routes are built from. The application mounts every layer (`app.use`) ahead of Nest's
 * routes; the endpoint's own route (`mcp-route.ts`) runs those that apply to `/api/mcp`
 * (`layersFor`), so a layer added here is added to both.
 */
export function requestMiddleware(agentCheck: Middleware): readonly MiddlewareLayer[] {
  return [
    // The endpoint's credential comes before its body: without a live agent token, a 401 and no body read.
    { handle: (req: Request, res: Response, next: NextFunction) => (req.method === 'POST' && req.path === MCP_PATH ? (agentCheck as (q: Request, s: Response, n: NextFunction) => void)(req, res, next) : next()) },
    // The MCP endpoint parses any JSON value (not only objects and arrays), so a valid JSON body
    // that is not a JSON-RPC message is answered -32600 by the SDK instead of -32700 here.
    { path: MCP_PATH, handle: json({ limit: MAX_BODY_BYTES, strict: false, type: JSON_TYPES }) },
    { handle: json({ limit: MAX_BODY_BYTES, type: JSON_TYPES }) },
    { handle: urlencoded({ extended: false, limit: MAX_BODY_BYTES, parameterLimit: 100 }) },
    { handle: bodyErrorHandler },
    { handle: bodyDepthGuard },
    { handle: cookieParser() },
    { handle: textGuard },
  ];
}

/** The handlers of the layers that `path` itself passes through (a layer without a path, or mounted exactly there), in order. */
export function layersFor(path: string, layers: readonly MiddlewareLayer[]): Middleware[] {
  return layers.filter((layer) => layer.path === undefined || layer.path === path).map((layer) => layer.handle);
}

export const bootLogger = new Logger('Bootstrap');
