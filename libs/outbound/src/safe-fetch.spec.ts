import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { safeFetch, type FetchWording } from './safe-fetch';

const wording: FetchWording = {
  host: 'The test host',
  document: 'The test document',
  plural: 'test documents',
  userAgent: 'test-fetcher',
  error: (message) => new Error(message),
};

describe('safeFetch with a form (a token endpoint)', () => {
  let server: Server;
  let seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[];
  let base: string;

  beforeAll(async () => {
    seen = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() });
        const bad = req.url?.includes('bad');
        res.writeHead(bad ? 400 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(bad ? { error: 'invalid_grant' } : { ok: true }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const options = { resolve: async () => [], allowLoopback: true, timeoutMs: 2000, maxBytes: 1024, wording };

  it('posts the form url-encoded with the given headers and answers the body', async () => {
    const answer = await safeFetch(new URL(`${base}/token?tenant=a`), {
      ...options,
      form: { grant_type: 'authorization_code', code: 'a b&c' },
      headers: { Authorization: 'Basic eDp5' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ ok: true });
    const request = seen.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/token?tenant=a');
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.headers.authorization).toBe('Basic eDp5');
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({ grant_type: 'authorization_code', code: 'a b&c' });
  });

  it('answers a listed error status with its body, and refuses another one', async () => {
    const answer = await safeFetch(new URL(`${base}/bad`), { ...options, form: { a: '1' }, acceptStatuses: [200, 400] });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: 'invalid_grant' });
    await expect(safeFetch(new URL(`${base}/bad`), { ...options, form: { a: '1' } })).rejects.toThrow(
      'The test document at 127.0.0.1 answered HTTP 400 instead of 200',
    );
  });

  it('keeps refusing loopback addresses without the development switch', async () => {
    await expect(safeFetch(new URL(`${base}/token`), { ...options, allowLoopback: false, form: { a: '1' } })).rejects.toThrow(/public addresses/);
    expect(seen.filter((r) => r.url === '/token')).toHaveLength(0);
  });
});
