import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { expectInternal } from '../../../test/helpers/framework-canary';

/**
 * Canaries: the parts of Express that `gateway-express-adapter.ts` relies on beyond its
 * documented API (docs/architecture.md, "Framework internals relied on"). No database.
 */

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Runs one GET through `app` on a real (loopback) server built from `classes`, answering what `probe` saw. */
async function oneRequest(app: express.Express, classes: object, probe: (req: IncomingMessage) => unknown): Promise<unknown> {
  let seen: unknown;
  app.get('/probe', (req, res) => {
    seen = probe(req);
    res.end();
  });
  const server = createServer(classes, app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/probe`);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return seen;
}

describe('Express internals used by gateway-express-adapter.ts', () => {
  it("app.request and app.response are per-application objects over Express's request and response prototypes, holding the app", () =>
    expectInternal('express app.request/app.response (per-app prototypes; used by gateway-express-adapter.ts)', () => {
      const app = express();
      expect(Object.getPrototypeOf(app.request)).toBe(express.request);
      expect(Object.getPrototypeOf(app.response)).toBe(express.response);
      expect(Object.getOwnPropertyDescriptor(app.request, 'app')?.value).toBe(app);
      expect(Object.getOwnPropertyDescriptor(app.response, 'app')?.value).toBe(app);
      expect(Object.getPrototypeOf(express.request)).toBe(IncomingMessage.prototype);
      expect(Object.getPrototypeOf(express.response)).toBe(ServerResponse.prototype);
      expect(typeof Object.getOwnPropertyDescriptor(express.request, 'path')?.get).toBe('function');
      expect(typeof express.response.status).toBe('function');
    }));

  it('Express sets app.request, read at request time, as the prototype of each request (and app.response of each response)', () =>
    expectInternal("express's per-request Object.setPrototypeOf(req, app.request) (used by gateway-express-adapter.ts)", async () => {
      const app = express();
      const request = Object.create(express.request, { app: { value: app, enumerable: true, configurable: true, writable: true } });
      const response = Object.create(express.response, { app: { value: app, enumerable: true, configurable: true, writable: true } });
      app.request = request;
      app.response = response;
      const seen = await oneRequest(app, {}, (req) => [Object.getPrototypeOf(req) === request, Object.getPrototypeOf((req as Loose).res) === response]);
      expect(seen).toEqual([true, true]);
    }));

  it("a request built by a class whose prototype is app.request keeps that prototype: Express's swap changes nothing", () =>
    expectInternal("express's prototype swap finding app.request already in place (used by gateway-express-adapter.ts)", async () => {
      const app = express();
      class Req extends IncomingMessage {}
      class Res extends ServerResponse {}
      for (const [target, sources] of [
        [Req.prototype, [express.request, app.request]],
        [Res.prototype, [express.response, app.response]],
      ] as const) {
        for (const source of sources) {
          for (const key of Reflect.ownKeys(source)) {
            if (key !== 'constructor') Object.defineProperty(target, key, Object.getOwnPropertyDescriptor(source, key)!);
          }
        }
      }
      app.request = Req.prototype as unknown as express.Request;
      app.response = Res.prototype as unknown as express.Response;
      const seen = await oneRequest(app, { IncomingMessage: Req, ServerResponse: Res }, (req) => [
        req instanceof Req,
        Object.getPrototypeOf(req) === Req.prototype,
        (req as Loose).path,
        (req as Loose).app === app,
      ]);
      expect(seen).toEqual([true, true, '/probe', true]);
    }));
});
