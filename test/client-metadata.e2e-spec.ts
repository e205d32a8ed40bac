import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { ClientRequest, RequestOptions } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { CleanupScheduler } from '@app/database';
import { RateLimitService } from '@app/rate-limit';
import {
  ClientMetadataDocumentRepository,
  ClientMetadataDocumentService,
  ClientMetadataError,
  ClientMetadataRateLimitError,
  type HostResolver,
  type RequestOpener,
  type ResolvedAddress,
} from '@app/oauth';
import { DocumentServer } from './helpers/document-server';
import { startTestApp, TestApp } from './helpers/test-app';

const document = (name = 'Local Test Client') => (url: string) => ({
  client_id: url,
  client_name: name,
  redirect_uris: ['http://127.0.0.1/callback', 'https://app.example.com/cb'],
  token_endpoint_auth_method: 'none',
});

/** What the service refuses with: the class and the message. */
async function refusal(promise: Promise<unknown>): Promise<ClientMetadataError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientMetadataError);
  return error as ClientMetadataError;
}

/** A request opener that records what it was asked to connect to and never opens a socket. */
function recordingOpener(): { open: RequestOpener; calls: RequestOptions[] } {
  const calls: RequestOptions[] = [];
  const open: RequestOpener = (_url, options) => {
    calls.push(options);
    const req = new EventEmitter() as EventEmitter & { end(): void; destroy(): void };
    req.end = () => setImmediate(() => req.emit('error', new Error('no network in tests')));
    req.destroy = () => undefined;
    return req as unknown as ClientRequest;
  };
  return { open, calls };
}

function serviceWith(t: TestApp, resolve: HostResolver, open?: RequestOpener): ClientMetadataDocumentService {
  return new ClientMetadataDocumentService(t.app.get(ClientMetadataDocumentRepository), t.app.get(RateLimitService), t.config, t.app.get(CleanupScheduler), { resolve, open });
}

describe('Client ID Metadata Documents, loopback switch on (development and tests)', () => {
  let t: TestApp;
  let docs: DocumentServer;
  let service: ClientMetadataDocumentService;
  beforeAll(async () => {
    t = await startTestApp({
      CLIENT_METADATA_ALLOW_LOOPBACK: 'true',
      CLIENT_METADATA_FETCHES_PER_IP_PER_MINUTE: '3',
      CLIENT_METADATA_FETCHES_PER_HOST_PER_MINUTE: '1000',
    });
    docs = await DocumentServer.start();
    service = t.app.get(ClientMetadataDocumentService);
  });
  afterAll(async () => {
    await docs.close();
    await t.close();
  });

  const cachedRow = async (clientId: string) => {
    const rows: { lifetime: number }[] = await t.dataSource.query(
      'SELECT round(extract(epoch FROM expires_at - fetched_at))::int AS lifetime FROM client_metadata_documents WHERE client_id = $1',
      [clientId],
    );
    return rows[0];
  };

  it('fetches, validates and caches a document for its max-age; the next resolution does not fetch', async () => {
    const url = docs.json('/cached.json', document(), { 'cache-control': 'public, max-age=3600' });
    expect(service.isMetadataDocumentClientId(url)).toBe(true);
    const first = await service.resolve(url, null);
    expect(first).toEqual({
      clientId: url,
      clientName: 'Local Test Client',
      redirectUris: ['http://127.0.0.1/callback', 'https://app.example.com/cb'],
      tokenEndpointAuthMethod: 'none',
    });
    expect(await service.resolve(url, null)).toEqual(first);
    expect(docs.hitsOf('/cached.json')).toBe(1);
    expect(await cachedRow(url)).toEqual({ lifetime: 3600 });
  });

  it('clamps cache lifetimes to 5 minutes … 24 hours and does not store a no-store document', async () => {
    const short = docs.json('/short.json', document(), { 'cache-control': 'max-age=5' });
    const long = docs.json('/long.json', document(), { 'cache-control': 'max-age=31536000' });
    const noStore = docs.json('/no-store.json', document(), { 'cache-control': 'no-store' });
    await service.resolve(short, null);
    await service.resolve(long, null);
    expect(await cachedRow(short)).toEqual({ lifetime: 300 });
    expect(await cachedRow(long)).toEqual({ lifetime: 86400 });
    await service.resolve(noStore, null);
    await service.resolve(noStore, null);
    expect(docs.hitsOf('/no-store.json')).toBe(2);
    expect(await cachedRow(noStore)).toBeUndefined();
  });

  it('uses a changed document at its next fetch', async () => {
    let name = 'Old Name';
    const url = docs.json('/changing.json', (u) => document(name)(u), { 'cache-control': 'max-age=600' });
    expect((await service.resolve(url, null)).clientName).toBe('Old Name');
    name = 'New Name';
    expect((await service.resolve(url, null)).clientName).toBe('Old Name');
    await t.dataSource.query(`UPDATE client_metadata_documents SET expires_at = now() - interval '1 second' WHERE client_id = $1`, [url]);
    expect((await service.resolve(url, null)).clientName).toBe('New Name');
    expect(docs.hitsOf('/changing.json')).toBe(2);
  });

  it('never caches a failure: the next resolution fetches again', async () => {
    let broken = true;
    const url = docs.route('/flaky.json', (_req, res) => {
      if (broken) res.writeHead(500).end('oops');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document()(`${docs.origin}/flaky.json`)));
    });
    expect((await refusal(service.resolve(url, null))).message).toBe(
      'The client metadata document at 127.0.0.1 answered HTTP 500 instead of 200',
    );
    expect(await cachedRow(url)).toBeUndefined();
    broken = false;
    expect((await service.resolve(url, null)).clientName).toBe('Local Test Client');
    expect(docs.hitsOf('/flaky.json')).toBe(2);
  });

  it('refuses a document whose client_id differs from its URL, and does not cache it', async () => {
    const url = docs.json('/impostor.json', () => document()('https://trusted.example.com/client.json'));
    const error = await refusal(service.resolve(url, null));
    expect(error.message).toBe('The client metadata document has a client_id that differs from the URL it was fetched from');
    expect(error).toMatchObject({ code: 'invalid_client', kind: 'invalid_input' });
    expect(await cachedRow(url)).toBeUndefined();
  });

  it('refuses a document carrying a secret or a shared-secret auth method', async () => {
    const secret = docs.json('/secret.json', (u) => ({ ...document()(u), client_secret: 'hunter2hunter2' }));
    const basic = docs.json('/basic.json', (u) => ({ ...document()(u), token_endpoint_auth_method: 'client_secret_basic' }));
    const e1 = await refusal(service.resolve(secret, null));
    expect(e1.message).toContain('must not carry a client_secret');
    expect(e1.message).not.toContain('hunter2');
    expect((await refusal(service.resolve(basic, null))).message).toContain('token_endpoint_auth_method "none"');
  });

  it('cuts off a slow server at the timeout', async () => {
    const url = docs.route('/slow.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"client_id":');
      // The rest never comes.
    });
    const started = Date.now();
    expect((await refusal(service.resolve(url, null))).message).toBe('The client metadata document did not arrive within 3 s');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(2900);
    expect(elapsed).toBeLessThan(5000);
  });

  it('cuts off an oversized document, declared or streamed', async () => {
    const big = JSON.stringify({ ...document()(`${docs.origin}/big.json`), padding: 'x'.repeat(6000) });
    const declared = docs.route('/big.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) }).end(big);
    });
    let streamedBytes = 0;
    const streamed = docs.route('/endless.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => {
        if (res.destroyed || res.writableEnded) return clearInterval(timer);
        streamedBytes += 1024;
        res.write(' '.repeat(1024));
      }, 5);
      res.on('close', () => clearInterval(timer));
    });
    expect((await refusal(service.resolve(declared, null))).message).toBe('The client metadata document at 127.0.0.1 is larger than 5120 bytes');
    expect((await refusal(service.resolve(streamed, null))).message).toBe('The client metadata document at 127.0.0.1 is larger than 5120 bytes');
    expect(streamedBytes).toBeLessThan(64 * 1024);
  });

  it('follows no redirect', async () => {
    const target = docs.json('/target.json', document());
    const url = docs.route('/moved.json', (_req, res) => res.writeHead(302, { location: target }).end());
    expect((await refusal(service.resolve(url, null))).message).toBe(
      'The client metadata document at 127.0.0.1 answered a redirect (HTTP 302); redirects are not followed',
    );
    expect(docs.hitsOf('/target.json')).toBe(0);
  });

  it('shares one fetch between concurrent resolutions of one URL', async () => {
    const url = docs.route('/concurrent.json', (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(document()(`${docs.origin}/concurrent.json`)));
      }, 200);
    });
    const results = await Promise.all(Array.from({ length: 8 }, () => service.resolve(url, null)));
    expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(docs.hitsOf('/concurrent.json')).toBe(1);
  });

  it('matches the redirect URI exactly, with the loopback port rule of RFC 8252', async () => {
    const url = docs.json('/redirects.json', document(), { 'cache-control': 'max-age=600' });
    await expect(service.resolveWithRedirect(url, 'https://app.example.com/cb', null)).resolves.toMatchObject({ clientId: url });
    await expect(service.resolveWithRedirect(url, 'http://127.0.0.1:51234/callback', null)).resolves.toMatchObject({ clientId: url });
    expect((await refusal(service.resolveWithRedirect(url, 'https://app.example.com/cb/', null))).message).toBe(
      'The redirect_uri is not one of the redirect_uris in the client metadata document',
    );
    expect((await refusal(service.resolveWithRedirect(url, 'http://127.0.0.1:51234/other', null))).message).toContain('not one of the redirect_uris');
  });

  it('over https connects to the checked address and verifies the certificate against the host name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ag-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'),
      '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=docs.example.test', '-addext', 'subjectAltName=DNS:docs.example.test'], { stdio: 'ignore' });
    const cert = readFileSync(join(dir, 'cert.pem'));
    const seen: { host?: string; servername?: string | false | null }[] = [];
    const server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
      seen.push({ host: req.headers.host, servername: (req.socket as TLSSocket).servername });
      const url = `https://${req.headers.host}${req.url}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document('TLS Client')(url)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      // The test's own CA is added to what the service's request would use; nothing else changes.
      const trusting: RequestOpener = (_url, options) => https.request({ ...options, ca: cert });
      const resolve = jest.fn<Promise<ResolvedAddress[]>, [string]>(async () => [{ address: '127.0.0.1', family: 4 }]);
      const tls = serviceWith(t, resolve, trusting);
      const client = await tls.resolve(`https://docs.example.test:${port}/client.json`, null);
      expect(client.clientName).toBe('TLS Client');
      expect(seen).toEqual([{ host: `docs.example.test:${port}`, servername: 'docs.example.test' }]);
      // The same server under a name its certificate does not carry: refused by TLS.
      const error = await refusal(tls.resolve(`https://other.example.test:${port}/client.json`, null));
      expect(error.message).toBe('The client metadata document at other.example.test could not be fetched (connection failed)');
      expect(seen).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('limits fetches per requesting address (cached documents cost nothing)', async () => {
    const ip = '198.51.100.77';
    const urls = [1, 2, 3, 4].map((i) => docs.json(`/limited-${i}.json`, document(), { 'cache-control': 'max-age=600' }));
    for (const url of urls.slice(0, 3)) await service.resolve(url, ip);
    await service.resolve(urls[0], ip); // cached: not counted
    const error = await refusal(service.resolve(urls[3], ip));
    expect(error).toBeInstanceOf(ClientMetadataRateLimitError);
    expect(error.kind).toBe('rate_limited');
    expect((error as ClientMetadataRateLimitError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(docs.hitsOf('/limited-4.json')).toBe(0);
  });
});

describe('Client ID Metadata Documents, loopback switch off (the default)', () => {
  let t: TestApp;
  let docs: DocumentServer;
  beforeAll(async () => {
    t = await startTestApp({ CLIENT_METADATA_FETCHES_PER_HOST_PER_MINUTE: '1000' });
    docs = await DocumentServer.start();
  });
  afterAll(async () => {
    await docs.close();
    await t.close();
  });

  it('refuses loopback client_id URLs without fetching', async () => {
    const service = t.app.get(ClientMetadataDocumentService);
    docs.json('/client.json', document());
    expect(service.isMetadataDocumentClientId(`${docs.origin}/client.json`)).toBe(false);
    expect((await refusal(service.resolve(`${docs.origin}/client.json`, null))).message).toBe('The client_id URL must use https');
    expect((await refusal(service.resolve(`https://127.0.0.1:${docs.port}/client.json`, null))).message).toBe(
      `The client_id host 127.0.0.1 resolves to an address that is a loopback address; client metadata documents are fetched only from public addresses`,
    );
    expect((await refusal(service.resolve(`https://[::1]:${docs.port}/client.json`, null))).message).toContain('loopback address');
    // A name: resolved by the system resolver (localhost never leaves the machine), then refused.
    expect((await refusal(service.resolve(`https://localhost:${docs.port}/client.json`, null))).message).toContain('loopback address');
    expect(docs.totalHits).toBe(0);
  });

  const REFUSED: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.5', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['100.64.1.1', 'carrier-grade NAT'],
    ['224.0.0.251', 'multicast'],
    ['ff05::2', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved or documentation'],
    ['2001:db8::10', 'reserved or documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped address that is a loopback'],
    ['::ffff:169.254.169.254', 'IPv4-mapped address that is a cloud metadata'],
    ['::ffff:10.0.0.1', 'IPv4-mapped address that is a private'],
    ['::7f00:1', 'IPv4-compatible'],
    ['64:ff9b::a9fe:a9fe', 'NAT64'],
  ];

  it.each(REFUSED)('refuses a host resolving to %s (%s) before any socket opens', async (address, what) => {
    const { open, calls } = recordingOpener();
    const resolve = jest.fn<Promise<ResolvedAddress[]>, [string]>(async () => [{ address, family: address.includes(':') ? 6 : 4 }]);
    const service = serviceWith(t, resolve, open);
    const error = await refusal(service.resolve('https://docs.example.test/client.json', null));
    expect(error.message).toContain('The client_id host docs.example.test resolves to an address that is');
    expect(error.message).toContain(what);
    expect(resolve).toHaveBeenCalledWith('docs.example.test');
    expect(calls).toHaveLength(0);
  });

  it('refuses a host when any of its addresses is refused, even after a public one', async () => {
    const { open, calls } = recordingOpener();
    const service = serviceWith(t, async () => [{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.8', family: 4 }], open);
    expect((await refusal(service.resolve('https://mixed.example.test/client.json', null))).message).toContain('private address');
    expect(calls).toHaveLength(0);
  });

  it('connects to the address it checked: a resolver answering a public address, then 127.0.0.1, never gets the fetch to 127.0.0.1', async () => {
    const { open, calls } = recordingOpener();
    const answers = ['93.184.215.14', '127.0.0.1'];
    const resolve = jest.fn<Promise<ResolvedAddress[]>, [string]>(async () => [{ address: answers.shift()!, family: 4 }]);
    const service = serviceWith(t, resolve, open);
    const error = await refusal(service.resolve('https://rebind.example.test/oauth/client.json', null));
    expect(error.message).toBe('The client metadata document at rebind.example.test could not be fetched (connection failed)');
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(calls).toHaveLength(1);
    const options = calls[0] as RequestOptions & { servername?: string };
    expect(options).toMatchObject({
      host: '93.184.215.14',
      port: 443,
      path: '/oauth/client.json',
      method: 'GET',
      servername: 'rebind.example.test',
      agent: false,
      headers: expect.objectContaining({ Host: 'rebind.example.test', Accept: 'application/json' }),
    });
    // Whatever asks the socket's lookup (a name, any family, all addresses) gets the checked address.
    const viaLookup = await new Promise<unknown>((done) =>
      options.lookup!('rebind.example.test', { all: true }, (_e: unknown, addresses: unknown) => done(addresses)),
    );
    expect(viaLookup).toEqual([{ address: '93.184.215.14', family: 4 }]);
    const single = await new Promise<unknown>((done) => options.lookup!('rebind.example.test', {}, (_e: unknown, address: unknown) => done(address)));
    expect(single).toBe('93.184.215.14');
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it('refuses an unresolvable host and a resolver that hangs, naming the host', async () => {
    const failing = serviceWith(t, async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    });
    expect((await refusal(failing.resolve('https://nowhere.example.test/client.json', null))).message).toBe(
      'The client_id host nowhere.example.test could not be resolved',
    );
    const hanging = new ClientMetadataDocumentService(t.app.get(ClientMetadataDocumentRepository), t.app.get(RateLimitService), t.config, t.app.get(CleanupScheduler), {
      resolve: () => new Promise(() => undefined),
      timeoutMs: 300,
    });
    expect((await refusal(hanging.resolve('https://slow-dns.example.test/client.json', null))).message).toBe(
      'The client metadata document did not arrive within 0.3 s',
    );
  });
});
