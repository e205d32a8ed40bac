import { DomainError } from '@app/common';
import { addressProblem, ipLiteral, type HostResolver } from '@app/outbound';

export interface SinkReach {
  allowLoopback: boolean;
  allowHosts: readonly string[];
  resolve: HostResolver;
}

/**
 * A sink's URL as saved: https (http only to loopback under OUTBOUND_ALLOW_LOOPBACK), and a host
 * whose addresses delivery may reach (SPEC §10, "Reaching private and loopback hosts"). Delivery
 * checks again at each connection (`safeFetch`); this names the problem at once.
 */
export async function checkedSinkUrl(raw: string, reach: SinkReach): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DomainError('invalid_sink_url', 'url must be an absolute https URL');
  }
  if (url.username || url.password) throw new DomainError('invalid_sink_url', 'url must not carry a user name or password');
  if (url.hash) throw new DomainError('invalid_sink_url', 'url must not have a fragment');
  const loopbackName = url.hostname === 'localhost' || ['127.0.0.1', '::1'].includes(ipLiteral(url.hostname) ?? '');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && reach.allowLoopback && loopbackName)) {
    throw new DomainError('invalid_sink_url', 'url must use https');
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
      throw new DomainError('audit_sink_unreachable', `The sink's host ${url.hostname} could not be resolved`);
    }
  }
  for (const address of addresses) {
    const problem = addressProblem(address, { allowLoopback: reach.allowLoopback, allowPrivate });
    if (problem) {
      throw new DomainError(
        'invalid_sink_url',
        `The sink's host ${url.hostname} resolves to an address that ${problem}; sinks reach private hosts only when OUTBOUND_ALLOW_HOSTS names them`,
      );
    }
  }
  return url;
}
