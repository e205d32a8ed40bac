import { createServer, request, type IncomingMessage, type RequestOptions, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { safeFetch, type FetchWording, type RequestOpener } from './safe-fetch';

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

describe('safeFetch and OUTBOUND_ALLOW_HOSTS (SPEC §10, "Reaching private and loopback hosts")', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ issuer: 'inside' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Resolves every name to `address`; records where each request was sent, and sends it to the local server. */
  function reach(address: string) {
    const connected: { host?: string | null; servername?: string; hostHeader?: unknown }[] = [];
    const open: RequestOpener = (_url, options) => {
      connected.push({ host: options.host, servername: (options as { servername?: string }).servername, hostHeader: options.headers && (options.headers as Record<string, unknown>).Host });
      return request({ ...options, protocol: 'http:', host: '127.0.0.1', port, lookup: undefined, servername: undefined } as RequestOptions);
    };
    const resolve = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    return { connected, options: { resolve, open, allowLoopback: false, timeoutMs: 2000, maxBytes: 1024, wording } };
  }

  it('refuses a private address of a host not named, naming the variable, before any socket opens', async () => {
    const { connected, options } = reach('10.20.0.15');
    await expect(safeFetch(new URL('https://idp.corp.test/.well-known/openid-configuration'), { ...options, allowHosts: ['other.corp.test'] })).rejects.toThrow(
      'The test host idp.corp.test resolves to an address that is a private address; test documents are fetched only from public addresses ' +
        '(or from hosts the operator names in OUTBOUND_ALLOW_HOSTS: add idp.corp.test there to reach it inside your network)',
    );
    expect(connected).toEqual([]);
  });

  it.each([
    ['a private address', '10.20.0.15', ['idp.corp.test']],
    ['a unique-local address', 'fd12:3456::15', ['idp.corp.test']],
    ['a carrier-grade NAT address', '100.64.3.4', ['idp.corp.test:443']],
  ])('reaches %s of a named host, connecting to the checked address under the host name', async (_what, address, allowHosts) => {
    const { connected, options } = reach(address);
    const answer = await safeFetch(new URL('https://IdP.Corp.Test/.well-known/openid-configuration'), { ...options, allowHosts });
    expect(JSON.parse(answer.body)).toEqual({ issuer: 'inside' });
    expect(connected).toEqual([{ host: address, servername: 'idp.corp.test', hostHeader: 'idp.corp.test' }]);
  });

  it('names a host with its port exactly: another port of that host stays refused', async () => {
    const { connected, options } = reach('10.20.0.15');
    await expect(safeFetch(new URL('https://idp.corp.test:8443/x'), { ...options, allowHosts: ['idp.corp.test:443'] })).rejects.toThrow(/private address/);
    expect(connected).toEqual([]);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.10.10', 'link-local'],
    ['::ffff:10.0.0.1', 'IPv4-mapped'],
  ])('never lets a named host reach %s (%s)', async (address, what) => {
    const { connected, options } = reach(address);
    const refused = safeFetch(new URL('https://idp.corp.test/x'), { ...options, allowHosts: ['idp.corp.test'] });
    await expect(refused).rejects.toThrow(what);
    await expect(refused).rejects.not.toThrow(/OUTBOUND_ALLOW_HOSTS/);
    expect(connected).toEqual([]);
  });

  it('without allowHosts (client metadata documents) a private address is refused with no word of the variable', async () => {
    const { options } = reach('10.20.0.15');
    const refused = safeFetch(new URL('https://idp.corp.test/x'), options);
    await expect(refused).rejects.toThrow('resolves to an address that is a private address; test documents are fetched only from public addresses');
    await expect(refused).rejects.not.toThrow(/OUTBOUND_ALLOW_HOSTS/);
  });
});
