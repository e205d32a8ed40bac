import { promises as dns } from 'node:dns';
import http, { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressProblem, ipLiteral, isPrivateAddress } from './address-policy';

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

/** How the refusals name what was fetched, and the error they are raised as. */
export interface FetchWording {
  /** "The client_id host", "The identity provider's host" */
  host: string;
  /** "The client metadata document", "The identity provider's discovery document" */
  document: string;
  /** "client metadata documents" (in "… are fetched only from public addresses") */
  plural: string;
  /** The `User-Agent` of the request. */
  userAgent: string;
  error: (message: string) => Error;
}

export interface FetcherOptions {
  resolve: HostResolver;
  wording: FetchWording;
  open?: RequestOpener;
  /** Development only: `http` and loopback addresses. */
  allowLoopback: boolean;
  /**
   * For fetches that may reach inside the network when the operator says so (identity providers,
   * never client metadata documents): `OUTBOUND_ALLOW_HOSTS`, lower-case host names or
   * `host:port`, whose private addresses are admitted. Given (even empty), a refusal of a private
   * address names the variable.
   */
  allowHosts?: readonly string[];
  /** For the whole exchange: resolution, connection, headers and body. */
  timeoutMs: number;
  maxBytes: number;
  /**
   * A form to POST (`application/x-www-form-urlencoded`) instead of a GET: an identity provider's
   * token endpoint. The same defences apply; the answer must still be a 200 within the bounds.
   */
  form?: Record<string, string>;
  /**
   * A body to POST as it is (an audit sink's NDJSON batch, a Splunk HEC event): the same defences
   * apply. Exclusive with `form`.
   */
  body?: { contentType: string; data: Buffer };
  /** Extra request headers (an `Authorization: Basic` of the client): sent, never put in an error. */
  headers?: Record<string, string>;
  /** Statuses whose body is answered (default 200 only): a token endpoint's 400 carries its `error`. */
  acceptStatuses?: readonly number[];
}

export interface FetchedDocument {
  status: number;
  body: string;
  headers: IncomingHttpHeaders;
}

/**
 * Fetches a JSON document (a Client ID Metadata Document, an identity provider's discovery
 * document or key set, or, with `form`, the answer of a POST to an identity provider's token
 * endpoint) without letting its URL reach inside the network
 * (SSRF): the host is resolved once, every address it resolves to must be public (see
 * `addressProblem`), and the connection goes to the first of those checked addresses — the
 * socket is given the IP itself (and a lookup that can only answer it), so no second resolution
 * can swap in another address; TLS still verifies the certificate against the host name (SNI).
 * No redirect is followed, the body is cut off beyond `maxBytes`, and the whole exchange is
 * abandoned after `timeoutMs`.
 */
export async function safeFetch(url: URL, options: FetcherOptions): Promise<FetchedDocument> {
  const deadline = Date.now() + options.timeoutMs;
  const address = await checkedAddress(url, options);
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw timedOut(options.wording, options.timeoutMs);
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
      addresses = await withTimeout(options.resolve(host), options.timeoutMs, options.wording);
    } catch (error) {
      if (error instanceof TimedOut) throw options.wording.error(error.message);
      throw options.wording.error(`${options.wording.host} ${host} could not be resolved`);
    }
  }
  if (addresses.length === 0) throw options.wording.error(`${options.wording.host} ${host} has no address`);
  const allowPrivate = isAllowedHost(url, options.allowHosts);
  for (const { address } of addresses) {
    const problem = addressProblem(address, { allowLoopback: options.allowLoopback, allowPrivate });
    if (problem) {
      const hint =
        options.allowHosts && !allowPrivate && isPrivateAddress(address)
          ? ` (or from hosts the operator names in OUTBOUND_ALLOW_HOSTS: add ${host} there to reach it inside your network)`
          : '';
      throw options.wording.error(
        `${options.wording.host} ${host} resolves to an address that ${problem}; ${options.wording.plural} are fetched only from public addresses${hint}`,
      );
    }
  }
  return addresses[0];
}

/** Whether `url`'s host (or `host:port`) is named in `allowHosts`. */
function isAllowedHost(url: URL, allowHosts: readonly string[] | undefined): boolean {
  if (!allowHosts?.length || ipLiteral(url.hostname)) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowHosts.includes(host) || allowHosts.includes(`${host}:${port}`);
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
    // The query string is part of the resource (an Azure AD B2C key set is `…/keys?p=<policy>`).
    path: `${url.pathname}${url.search}`,
    method: options.form || options.body ? 'POST' : 'GET',
    headers: { ...options.headers, Host: url.host, Accept: 'application/json', 'User-Agent': options.wording.userAgent },
    lookup: pinnedLookup,
    agent: false,
  };
  if (!ipLiteral(url.hostname)) requestOptions.servername = url.hostname;
  const payload = options.form ? Buffer.from(new URLSearchParams(options.form).toString()) : options.body?.data;
  if (payload) {
    requestOptions.headers = {
      ...requestOptions.headers,
      'Content-Type': options.form ? 'application/x-www-form-urlencoded' : options.body!.contentType,
      'Content-Length': String(payload.length),
    };
  }
  const host = url.hostname;
  const { wording } = options;
  const fail = (what: string) => wording.error(`${wording.document} at ${host} ${what}`);

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
    const timer = setTimeout(() => finish(timedOut(wording, totalMs)), options.timeoutMs);
    try {
      req = (options.open ?? defaultOpener)(url, requestOptions);
    } catch {
      finish(fail('could not be requested'));
      return;
    }
    req.on('error', () => finish(fail('could not be fetched (connection failed)')));
    req.on('response', (res: IncomingMessage) => {
      // Destroying the request mid-body makes the response emit an error: answered already.
      res.on('error', () => finish(fail('could not be read (connection broken)')));
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.resume();
        return finish(fail(`answered a redirect (HTTP ${status}); redirects are not followed`));
      }
      if (!(options.acceptStatuses ?? [200]).includes(status)) {
        res.resume();
        return finish(fail(`answered HTTP ${status} instead of 200`));
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) return finish(fail(`is larger than ${options.maxBytes} bytes`));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return finish(fail(`is larger than ${options.maxBytes} bytes`));
        chunks.push(chunk);
      });
      res.on('end', () => finish(undefined, { status, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.end(payload);
  });
}

class TimedOut extends Error {}

function timedOut(wording: FetchWording, ms: number): Error {
  return wording.error(`${wording.document} did not arrive within ${ms / 1000} s`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, wording: FetchWording): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut(timedOut(wording, ms).message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
