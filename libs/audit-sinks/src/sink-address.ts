import { DomainError } from '@app/common';
import { checkedOutboundUrl, type OutboundReach } from '@app/outbound';

export type SinkReach = OutboundReach;

/** A sink's URL as saved (`checkedOutboundUrl`, in the words of sinks). */
export function checkedSinkUrl(raw: string, reach: SinkReach): Promise<URL> {
  return checkedOutboundUrl(raw, reach, { invalid: 'invalid_sink_url', unreachable: 'audit_sink_unreachable', what: 'The sink', plural: 'sinks', error: (code, message) => new DomainError(code, message) });
}
