import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { expressShapedClasses } from './gateway-express-adapter';

describe('expressShapedClasses', () => {
  let server: Server;
  let base: string;
  let app: express.Express;
  /** Per request: was the prototype Express sets already in place before Express ran? */
  const inPlace: boolean[] = [];

  beforeAll(async () => {
    app = express();
    app.set('trust proxy', false);
    app.get('/things/:id', (req, res) => {
      res
        .status(201)
        .set('X-Probe', 'yes')
        .cookie('seen', '1', { httpOnly: true })
        .json({
          id: req.params.id,
          path: req.path,
          query: req.query,
          host: req.hostname,
          accepts: req.accepts(['text/html', 'application/json']),
          header: req.get('x-thing'),
          sameApp: req.app === app,
          isNodeRequest: req instanceof IncomingMessage,
          isNodeResponse: res instanceof ServerResponse,
        });
    });
    app.post('/echo', express.json(), (req, res) => void res.send(req.body));
    app.use((req, res) => void res.status(404).type('text').send(`no ${req.method} ${req.path}`));
    server = createServer(expressShapedClasses(app), app);
    server.prependListener('request', (req: IncomingMessage) => inPlace.push(Object.getPrototypeOf(req) === app.request));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("gives every request and response Express's methods and getters, as Express itself would", async () => {
    const res = await fetch(`${base}/things/42?x=1&y=two`, { headers: { accept: 'application/json', 'x-thing': 'probe' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-probe')).toBe('yes');
    expect(res.headers.get('set-cookie')).toBe('seen=1; Path=/; HttpOnly');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      id: '42',
      path: '/things/42',
      query: { x: '1', y: 'two' },
      host: '127.0.0.1',
      accepts: 'application/json',
      header: 'probe',
      sameApp: true,
      isNodeRequest: true,
      isNodeResponse: true,
    });
  });

  it('parses bodies and answers the fallback as before', async () => {
    const echoed = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
    expect(await echoed.json()).toEqual({ a: [1, 2] });
    const missing = await fetch(`${base}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('no GET /nowhere');
  });

  it("builds them with the prototype Express sets, so Express's swap changes nothing", () => {
    // The three requests above, each built already in Express's shape.
    expect(inPlace).toEqual([true, true, true]);
  });
});
