import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The redirect URI of a native client: a loopback HTTP server that records each callback it
 * receives (RFC 8252 §7.3), as Claude Code, VS Code and the MCP Inspector run one.
 */
export class CallbackServer {
  private readonly server: Server;
  private waiting: ((url: URL) => void)[] = [];
  readonly received: URL[] = [];

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(): Promise<CallbackServer> {
    let instance: CallbackServer | undefined;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Done</title><p id="done">You can close this window.</p>');
      instance!.received.push(url);
      instance!.waiting.shift()?.(url);
    });
    instance = new CallbackServer(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return instance;
  }

  get redirectUri(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  /**
   * The next callback (or one already received and not yet taken). Rejects after `withinMs`
   * with what the caller passes in `where` (say, the browser page's address), so a sign-in that
   * stops short of the redirect URI names where it stopped instead of running into the test's time.
   */
  next(withinMs = 30_000, where?: () => string): Promise<URL> {
    const ready = this.received.length > this.taken ? this.received[this.taken] : undefined;
    if (ready) {
      this.taken += 1;
      return Promise.resolve(ready);
    }
    return new Promise((resolve, reject) => {
      const take = (url: URL): void => {
        clearTimeout(timer);
        this.taken += 1;
        resolve(url);
      };
      const timer = setTimeout(() => {
        this.waiting = this.waiting.filter((w) => w !== take);
        reject(new Error(`no callback at ${this.redirectUri} within ${withinMs / 1000} s${where ? `; stopped at ${where()}` : ''}`));
      }, withinMs);
      this.waiting.push(take);
    });
  }

  private taken = 0;

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
