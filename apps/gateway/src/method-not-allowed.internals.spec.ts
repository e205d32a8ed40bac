import express from 'express';
import { expectInternal } from '../../../test/helpers/framework-canary';

/**
 * Canary: the part of Express's router that `method-not-allowed.ts` reads beyond its documented
 * API (docs/architecture.md, "Framework internals relied on"). No database, no server.
 */

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('Express internals used by method-not-allowed.ts', () => {
  it('app.router.stack lists the routes as layers with route.methods and match(path)', () =>
    expectInternal('express app.router.stack (Layer#route.methods, Layer#match; used by method-not-allowed.ts)', () => {
      const app = express();
      app.get('/things/:id', (_req, res) => void res.end());
      app.post('/things/:id', (_req, res) => void res.end());
      const stack = ((app as unknown as Loose).router?.stack ?? []) as Loose[];
      const routes = stack.filter((layer) => layer.route);
      expect(routes).toHaveLength(2);
      for (const layer of routes) {
        expect(typeof layer.match).toBe('function');
        expect(Boolean(layer.match('/things/7'))).toBe(true);
        expect(Boolean(layer.match('/other'))).toBe(false);
      }
      expect(routes.map((layer) => layer.route.methods)).toEqual([{ get: true }, { post: true }]);
    }));
});
