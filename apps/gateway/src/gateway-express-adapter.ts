import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type express from 'express';

/**
 * Nest's Express adapter, with one change in how the HTTP server makes its requests and responses.
 *
 * Express gives each request and response its methods (`res.status`, `req.path`, …) by replacing
 * the prototype of the object Node has just built (`Object.setPrototypeOf(req, app.request)` in
 * `app.handle`). Changing the prototype of a live object makes V8 drop its fast paths for it:
 * every property access on the request and the response afterwards, in Node's HTTP code as in
 * Express's and ours, takes a slower path. Measured on this machine, an Express application
 * answering a small JSON `POST` spent about 150 µs of CPU per request that way and about 35 µs
 * without it (`docs/performance.md`).
 *
 * Here the server builds them from subclasses of Node's own classes whose prototypes already
 * carry Express's request and response methods, and those prototypes become the application's
 * `request` and `response`; Express's `setPrototypeOf` then finds the prototype already in place
 * and changes nothing. Every request and response still has exactly Express's methods and
 * Node's, and every middleware, route and filter runs as before.
 */
export class GatewayExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    super.initHttpServer(options);
    // HTTPS and connection tracking stay as Nest sets them up (the gateway uses neither: TLS ends at the proxy).
    if (options?.httpsOptions || options?.forceCloseConnections) return;
    const app = this.getInstance<express.Express>();
    this.setHttpServer(createServer(expressShapedClasses(app), app));
  }
}

/**
 * Node's request and response classes, extended with the methods `app` would give each of their
 * objects; their prototypes become `app.request` and `app.response`, which Express sets on every
 * request and response it handles.
 */
export function expressShapedClasses(app: express.Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  class ExpressRequest extends IncomingMessage {}
  class ExpressResponse extends ServerResponse {}
  // What Express sets as the prototype: `app.request` (holding `app`), over Express's request methods.
  copyMembers(ExpressRequest.prototype, Object.getPrototypeOf(app.request) as object, app.request);
  copyMembers(ExpressResponse.prototype, Object.getPrototypeOf(app.response) as object, app.response);
  app.request = ExpressRequest.prototype as unknown as express.Request;
  app.response = ExpressResponse.prototype as unknown as express.Response;
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse as typeof ServerResponse };
}

/** Copies the own members (methods, getters, values) of each source onto `target`, later ones winning, keeping the target's constructor. */
function copyMembers(target: object, ...sources: object[]): void {
  for (const source of sources) {
    for (const key of Reflect.ownKeys(source)) {
      if (key === 'constructor') continue;
      Object.defineProperty(target, key, Object.getOwnPropertyDescriptor(source, key)!);
    }
  }
}
