import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One log record as an OTLP/HTTP JSON body carries it. */
export interface OtlpLogRecord {
  timeUnixNano?: string;
  severityNumber?: number;
  eventName?: string;
  body?: { stringValue?: string };
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/**
 * A stand-in OpenTelemetry collector: `POST /v1/logs` with an OTLP/HTTP JSON body
 * (`ExportLogsServiceRequest`), kept when it answers 200. `down()` closes its port (connections
 * are refused, as from a collector that is not running) and `up()` opens the same port again.
 */
export async function startOtlpCollector() {
  const received: { resource: Record<string, unknown>; scope: string; record: OtlpLogRecord }[] = [];
  let onRequest: (() => void) | undefined;
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/logs' || !String(req.headers['content-type']).startsWith('application/json')) {
          res.writeHead(400).end();
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceLogs: { resource: { attributes: { key: string; value: Record<string, unknown> }[] }; scopeLogs: { scope: { name: string }; logRecords: OtlpLogRecord[] }[] }[];
        };
        for (const resourceLogs of body.resourceLogs) {
          const resource = Object.fromEntries(resourceLogs.resource.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
          for (const scopeLogs of resourceLogs.scopeLogs) for (const record of scopeLogs.logRecords) received.push({ resource, scope: scopeLogs.scope.name, record });
        }
        onRequest?.();
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server!.address() as AddressInfo).port;
  };
  const down = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
      server = undefined;
    });
  await listen();
  return {
    url: `http://127.0.0.1:${port}/v1/logs`,
    received,
    /** Called on each accepted body, before it is answered. */
    onAccepted(callback: (() => void) | undefined) {
      onRequest = callback;
    },
    down,
    up: listen,
    close: down,
  };
}

/** A record's attribute by key. */
export function attribute(record: OtlpLogRecord, key: string): unknown {
  const found = record.attributes?.find((a) => a.key === key);
  return found ? Object.values(found.value)[0] : undefined;
}
