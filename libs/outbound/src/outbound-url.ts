import { addressProblem, ipLiteral } from './address-policy';
import type { HostResolver } from './safe-fetch';

export interface OutboundReach {
  allowLoopback: boolean;
  allowHosts: readonly string[];
  resolve: HostResolver;
}

/** How the refusals of one kind of outbound URL read: its error codes and names. */
export interface OutboundUrlWords {
  /** The code of a malformed or refused URL (`invalid_sink_url`). */
  invalid: string;
  /** The code of a host that does not resolve (`audit_sink_unreachable`). */
  unreachable: string;
  /** "The sink" (in "The sink's host …"). */
  what: string;
  /** "sinks" (in "… reach private hosts only when OUTBOUND_ALLOW_HOSTS names them"). */
  plural: string;
  /** The error a refusal is raised as (the caller's domain error: this library imports none). */
  error: (code: string, message: string) => Error;
}

/**
 * An outbound URL as saved (audit sinks, approval webhooks): https (http only to loopback under
 * OUTBOUND_ALLOW_LOOPBACK), no credentials or fragment, and a host whose addresses delivery may
 * reach (SPEC §10, "Reaching private and loopback hosts"). Delivery checks again at each
 * connection (`safeFetch`); this names the problem at once.
 */
export async function checkedOutboundUrl(raw: string, reach: OutboundReach, words: OutboundUrlWords): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw words.error(words.invalid, 'url must be an absolute https URL');
  }
  if (url.username || url.password) throw words.error(words.invalid, 'url must not carry a user name or password');
  if (url.hash) throw words.error(words.invalid, 'url must not have a fragment');
  const loopbackName = url.hostname === 'localhost' || ['127.0.0.1', '::1'].includes(ipLiteral(url.hostname) ?? '');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && reach.allowLoopback && loopbackName)) {
    throw words.error(words.invalid, 'url must use https');
  }
  const host = url.hostname.toLowerCase();
  const allowPrivate = reach.allowHosts.includes(host) || reach.allowHosts.includes(`${host}:${url.port || '443'}`);
  let addresses: string[];
  const literal = ipLiteral(url.hostname);
  if (literal) addresses = [literal];
  else {
    try {
      addresses = (await reach.resolve(url.hostname)).map((a) => a.address);
    } catch {
      throw words.error(words.unreachable, `${words.what}'s host ${url.hostname} could not be resolved`);
    }
  }
  for (const address of addresses) {
    const problem = addressProblem(address, { allowLoopback: reach.allowLoopback, allowPrivate });
    if (problem) {
      throw words.error(
        words.invalid,
        `${words.what}'s host ${url.hostname} resolves to an address that ${problem}; ${words.plural} reach private hosts only when OUTBOUND_ALLOW_HOSTS names them`,
      );
    }
  }
  return url;
}
