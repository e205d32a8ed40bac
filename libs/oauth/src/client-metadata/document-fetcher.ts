import { promises as dns } from 'node:dns';
import http, { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressProblem, ipLiteral } from './address-policy';
import { ClientMetadataError } from './client-metadata.errors';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (the default: `dns.promises.lookup` with `all`). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** Opens the HTTP request (the default: `node:https` / `node:http`); tests may observe it. */
export type RequestOpener = (url: URL, options: RequestOptions) => ClientRequest;

const defaultOpener: RequestOpener = (url, options) => (url.protocol === 'https:' ? https.request(options) : http.request(options));

export interface FetcherOptions {
  resolve: HostResolver;
  open?: RequestOpener;
  /** Development only: `http` and loopback addresses. */
  allowLoopback: boolean;
  /** For the whole exchange: resolution, connection, headers and body. */
  timeoutMs: number;
  maxBytes: number;
}

export interface FetchedDocument {
  body: string;
  headers: IncomingHttpHeaders;
}

/**
 * Fetches a Client ID Metadata Document without letting its URL reach inside the network
 * (SSRF): the host is resolved once, every address it resolves to must be public (see
 * `addressProblem`), and the connection goes to the first of those checked addresses — the
 * socket is given the IP itself (and a lookup that can only answer it), so no second resolution
 * can swap in another address; TLS still verifies the certificate against the host name (SNI).
 * No redirect is followed, the body is cut off beyond `maxBytes`, and the whole exchange is
 * abandoned after `timeoutMs`.
 */
export async function fetchClientMetadataDocument(url: URL, options: FetcherOptions): Promise<FetchedDocument> {
  const deadline = Date.now() + options.timeoutMs;
  const address = await checkedAddress(url, options);
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw timedOut(options.timeoutMs);
  return exchange(url, address, { ...options, timeoutMs: remaining }, options.timeoutMs);
}

async function checkedAddress(url: URL, options: FetcherOptions): Promise<ResolvedAddress> {
  const host = url.hostname;
  const literal = ipLiteral(host);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await withTimeout(options.resolve(host), options.timeoutMs);
    } catch (error) {
      if (error instanceof ClientMetadataError) throw error;
      throw new ClientMetadataError(`The client_id host ${host} could not be resolved`);
    }
  }
  if (addresses.length === 0) throw new ClientMetadataError(`The client_id host ${host} has no address`);
  for (const { address } of addresses) {
    const problem = addressProblem(address, { allowLoopback: options.allowLoopback });
    if (problem) {
      throw new ClientMetadataError(
        `The client_id host ${host} resolves to an address that ${problem}; client metadata documents are fetched only from public addresses`,
      );
    }
  }
  return addresses[0];
}

function exchange(url: URL, target: ResolvedAddress, options: FetcherOptions, totalMs: number): Promise<FetchedDocument> {
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const requestOptions: RequestOptions & { servername?: string } = {
    protocol: url.protocol,
    host: target.address,
    family: target.family,
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    path: url.pathname,
    method: 'GET',
    headers: { Host: url.host, Accept: 'application/json', 'User-Agent': 'agent-gateway client-metadata-fetcher' },
    lookup: pinnedLookup,
    agent: false,
  };
  if (!ipLiteral(url.hostname)) requestOptions.servername = url.hostname;
  const host = url.hostname;

  return new Promise<FetchedDocument>((resolve, reject) => {
    let settled = false;
    let req: ClientRequest | undefined;
    const finish = (error: Error | undefined, value?: FetchedDocument) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req?.destroy();
        reject(error);
      } else resolve(value!);
    };
    const timer = setTimeout(() => finish(timedOut(totalMs)), options.timeoutMs);
    try {
      req = (options.open ?? defaultOpener)(url, requestOptions);
    } catch {
      finish(new ClientMetadataError(`The client metadata document at ${host} could not be requested`));
      return;
    }
    req.on('error', () => finish(new ClientMetadataError(`The client metadata document at ${host} could not be fetched (connection failed)`)));
    req.on('response', (res: IncomingMessage) => {
      // Destroying the request mid-body makes the response emit an error: answered already.
      res.on('error', () => finish(new ClientMetadataError(`The client metadata document at ${host} could not be read (connection broken)`)));
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.resume();
        return finish(new ClientMetadataError(`The client metadata document at ${host} answered a redirect (HTTP ${status}); redirects are not followed`));
      }
      if (status !== 200) {
        res.resume();
        return finish(new ClientMetadataError(`The client metadata document at ${host} answered HTTP ${status} instead of 200`));
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) return finish(tooLarge(host, options.maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return finish(tooLarge(host, options.maxBytes));
        chunks.push(chunk);
      });
      res.on('end', () => finish(undefined, { body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.end();
  });
}

function tooLarge(host: string, maxBytes: number): ClientMetadataError {
  return new ClientMetadataError(`The client metadata document at ${host} is larger than ${maxBytes} bytes`);
}

function timedOut(ms: number): ClientMetadataError {
  return new ClientMetadataError(`The client metadata document did not arrive within ${ms / 1000} s`);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
