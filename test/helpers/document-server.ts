import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export type DocumentHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A local HTTP server on 127.0.0.1 standing in for the host of Client ID Metadata Documents:
 * each path gets a handler (a document with headers, a slow or oversized answer, a redirect),
 * and every request is counted per path so a test can tell whether a fetch happened.
 * Given `tls` (a key and a certificate made for `localhost`), it serves https and its URLs
 * name the host `localhost`, as an SDK client's `clientMetadataUrl` must be https.
 */
export class DocumentServer {
  private readonly handlers = new Map<string, DocumentHandler>();
  private readonly hits = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    private readonly secure: boolean,
  ) {}

  static async start(options: { tls?: { key: Buffer; cert: Buffer } } = {}): Promise<DocumentServer> {
    let instance: DocumentServer | undefined;
    const handle = (req: IncomingMessage, res: ServerResponse) => instance!.handle(req, res);
    const server = options.tls ? createTlsServer(options.tls, handle) : createServer(handle);
    instance = new DocumentServer(server, options.tls !== undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return instance;
  }

  get origin(): string {
    const port = (this.server.address() as AddressInfo).port;
    return this.secure ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Serves `handler` at `path`; answers the URL of that path. */
  route(path: string, handler: DocumentHandler): string {
    this.handlers.set(path, handler);
    return `${this.origin}${path}`;
  }

  /** Serves a JSON document at `path` with the given headers. */
  json(path: string, body: (url: string) => unknown, headers: Record<string, string> = {}): string {
    const url = `${this.origin}${path}`;
    return this.route(path, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body(url)));
    });
  }

  hitsOf(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  get totalHits(): number {
    return [...this.hits.values()].reduce((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    const handler = this.handlers.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  }
}
