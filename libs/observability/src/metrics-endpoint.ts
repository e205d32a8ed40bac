import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from './metrics';

export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics` on the main port, for a scraper holding `token` as a Bearer credential
 * (compared in constant time). Anything else is 401 with a challenge; no detail is exposed.
 */
export function metricsEndpoint(metrics: Metrics, token: string) {
  const expected = digest(token);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.path !== '/' && req.path !== '') return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.status(405).setHeader('Allow', 'GET, HEAD').json({ statusCode: 405, message: 'Method Not Allowed', error: 'Method Not Allowed' });
      return;
    }
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(req.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      res
        .status(401)
        .setHeader('WWW-Authenticate', 'Bearer realm="metrics"')
        .setHeader('Cache-Control', 'no-store')
        .json({ statusCode: 401, message: 'Metrics need Authorization: Bearer <METRICS_TOKEN>', error: 'Unauthorized' });
      return;
    }
    await send(metrics, res);
  };
}

/** A listener of its own on 127.0.0.1 serving only `GET /metrics`, without a token. */
export function startMetricsListener(metrics: Metrics, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n');
      return;
    }
    void send(metrics, res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

async function send(metrics: Metrics, res: import('node:http').ServerResponse): Promise<void> {
  const { contentType, body } = await metrics.render();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
