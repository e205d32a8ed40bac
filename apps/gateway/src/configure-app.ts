import { INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import cookieParser from 'cookie-parser';
import type { NextFunction, Request, Response } from 'express';
import { json, urlencoded } from 'express';
import { AppConfig } from '@app/config';
import { AppModule, AppModuleOptions } from './app.module';
import { corsPolicy, MCP_PATH } from './cors.middleware';
import { createLogger } from './logger';

/** Largest request body accepted anywhere (SPEC §3: over 1 MiB → 413). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Builds the application exactly as `main.ts` runs it; e2e tests use this too. */
export async function createGatewayApp(config: AppConfig, options: AppModuleOptions = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, options), {
    bodyParser: false,
    logger: createLogger(config.logLevel),
    abortOnError: false,
  });
  configureApp(app, config);
  return app;
}

export function configureApp(app: NestExpressApplication, config: AppConfig): INestApplication {
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.use(corsPolicy(config));
  app.use(json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'] }));
  app.use(urlencoded({ extended: false, limit: MAX_BODY_BYTES, parameterLimit: 100 }));
  app.use(bodyErrorHandler);
  app.use(cookieParser());
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Agent Gateway')
      .setDescription('REST surface for administrators (server-to-server). Agents use the MCP endpoint at /api/mcp.')
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Session JWT or rk_ API key' })
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs/openapi.json' });
  return app;
}

/**
 * Body-parser failures, answered before any route: on the MCP endpoint as JSON-RPC errors
 * (-32700 parse error), elsewhere in the REST shape. Never a 500.
 */
function bodyErrorHandler(err: unknown, req: Request, res: Response, next: NextFunction): void {
  const e = err as { type?: string; status?: number; message?: string };
  if (!e || typeof e.type !== 'string') return next(err);
  const tooLarge = e.type === 'entity.too.large';
  const status = tooLarge ? 413 : e.status && e.status >= 400 && e.status < 500 ? e.status : 400;
  const message = tooLarge
    ? `Request body exceeds ${MAX_BODY_BYTES} bytes`
    : e.type === 'entity.parse.failed'
      ? 'Malformed JSON in request body'
      : (e.message ?? 'Unreadable request body');
  if (req.path === MCP_PATH) {
    res.status(status).json({
      jsonrpc: '2.0',
      id: null,
      error: { code: tooLarge ? -32600 : e.type === 'entity.parse.failed' ? -32700 : -32600, message },
    });
    return;
  }
  res.status(status).json({ statusCode: status, message, error: status === 413 ? 'Payload Too Large' : 'Bad Request' });
}

export const bootLogger = new Logger('Bootstrap');
