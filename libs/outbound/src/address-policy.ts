import ipaddr from 'ipaddr.js';

/**
 * Which resolved addresses a Client ID Metadata Document may be fetched from: public unicast
 * only. Everything else is refused before any socket opens — loopback, private (RFC 1918),
 * link-local (which holds 169.254.169.254, the cloud metadata service), unique-local (fd00:ec2::254),
 * carrier-grade NAT (100.100.100.200), multicast, unspecified, broadcast, documentation and
 * reserved blocks, and the IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d`, NAT64, 6to4, Teredo, SIIT), which could reach any of those.
 * Ranges come from `ipaddr.js`; an address it calls anything but `unicast` is refused.
 */
const CLOUD_METADATA_ADDRESSES = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean …
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  '192.0.0.192', // Oracle Cloud
  'fd00:ec2::254', // AWS over IPv6
]);

/** Human names of `ipaddr.js` ranges, for the refusal message. */
const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback',
  private: 'a private',
  linkLocal: 'a link-local',
  uniqueLocal: 'a unique-local',
  carrierGradeNat: 'a carrier-grade NAT',
  multicast: 'a multicast',
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  reserved: 'a reserved or documentation',
  ipv4Mapped: 'an IPv4-mapped',
  rfc6145: 'an IPv4-translated (SIIT)',
  rfc6052: 'a NAT64',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
  discard: 'a discard-only',
  as112: 'an AS112',
  amt: 'an AMT',
  deprecatedOrchid: 'an ORCHID',
  orchid2: 'an ORCHID',
  benchmarking: 'a benchmarking',
};

export interface AddressPolicy {
  /** Development only: loopback addresses are allowed too. */
  allowLoopback: boolean;
  /**
   * A host the operator named (`OUTBOUND_ALLOW_HOSTS`): its private (RFC 1918), unique-local and
   * carrier-grade NAT addresses are allowed too; loopback, link-local and cloud metadata never.
   */
  allowPrivate?: boolean;
}

/** The ranges a host named in `OUTBOUND_ALLOW_HOSTS` may resolve to. */
const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'carrierGradeNat']);

/** Whether a refusal of `addressProblem` is one that naming the host in `OUTBOUND_ALLOW_HOSTS` would lift. */
export function isPrivateAddress(address: string): boolean {
  try {
    const parsed = ipaddr.parse(address);
    return !CLOUD_METADATA_ADDRESSES.has(parsed.toString()) && PRIVATE_RANGES.has(parsed.range());
  } catch {
    return false;
  }
}

/** Why a document may not be fetched from `address` (an IP literal), or undefined when it may. */
export function addressProblem(address: string, policy: AddressPolicy): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return `is not an IP address`;
  }
  const canonical = parsed.toString();
  if (CLOUD_METADATA_ADDRESSES.has(canonical)) return 'is a cloud metadata service address';
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      const inner = addressProblem(v6.toIPv4Address().toString(), policy);
      return inner ? `is an IPv4-mapped address that ${inner}` : 'is an IPv4-mapped address (connect over IPv4 instead)';
    }
  }
  const range = parsed.range();
  if (range === 'loopback' && policy.allowLoopback) return undefined;
  if (PRIVATE_RANGES.has(range) && policy.allowPrivate) return undefined;
  if (range !== 'unicast') return `is ${RANGE_NAMES[range] ?? `a non-public (${range})`} address`;
  // ::/96 (IPv4-compatible, deprecated) past `::` and `::1`: `ipaddr.js` calls `::7f00:1` unicast.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) {
    return 'is an IPv4-compatible IPv6 address';
  }
  return undefined;
}

/** `[::1]` → `::1`: a URL's hostname as an IP literal, or undefined when it is a name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : undefined;
}
