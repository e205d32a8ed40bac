import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { Readiness } from '@app/health';

const logger = new Logger('Shutdown');

/**
 * Answers on a connection that is about to be closed ask the client to reconnect, which sends it
 * to another instance: every response carries `Connection: close` once shutdown has begun.
 */
export function closeConnectionsWhenDraining(readiness: Readiness) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    if (readiness.draining) res.setHeader('Connection', 'close');
    next();
  };
}

/**
 * SIGTERM (or SIGINT), in order: readiness answers 503 at once while requests are still served
 * for `shutdownDelaySeconds` (a load balancer notices and stops sending); then the listener
 * closes and requests in flight get up to `shutdownDrainSeconds` to finish (then their
 * connections are cut); then the application closes: pending last-used times are written, the
 * pool and the embedded database close; then `afterClose` (the traces still pending are exported).
 * Exit code 0, or 1 when a step failed.
 */
export function installGracefulShutdown(app: NestExpressApplication, config: AppConfig, afterClose?: () => Promise<void>): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    shutdown(app, config, signal)
      .then(() => afterClose?.())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function shutdown(app: NestExpressApplication, config: AppConfig, signal: NodeJS.Signals): Promise<void> {
  app.get(Readiness).beginDraining();
  logger.log(`${signal}: not ready any more; serving for ${config.shutdownDelaySeconds} s before closing the listener`);
  if (config.shutdownDelaySeconds > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelaySeconds * 1000));
  const drained = await drain(app.getHttpServer() as Server, config.shutdownDrainSeconds * 1000);
  logger.log(drained ? 'listener closed; every request finished' : `requests still running after ${config.shutdownDrainSeconds} s were cut`);
  await app.close();
  logger.log('stopped');
}

/** Stops accepting connections, closes idle ones as they become idle, cuts the rest at the deadline. */
function drain(server: Server, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => {
      clearInterval(idle);
      server.closeAllConnections();
      resolve(false);
    }, timeoutMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(deadline);
      resolve(true);
    });
  });
}
