export { addressProblem, ipLiteral, isPrivateAddress } from './address-policy';
export { safeFetch, systemResolver } from './safe-fetch';
export type { FetchedDocument, FetcherOptions, FetchWording, HostResolver, RequestOpener, ResolvedAddress } from './safe-fetch';
export { checkedOutboundUrl, type OutboundReach, type OutboundUrlWords } from './outbound-url';
