import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The `prevHash` of a chain's first record. */
export const GENESIS_HASH = '0'.repeat(64);

/** A sealed record's place in its chain, as the export writes it in `unmapped.chain`. */
export interface ChainLink {
  seq: number;
  prevHash: string;
  hash: string;
}

/** The event as exported: the stored event with `unmapped.chain`. */
export function exportedEvent(event: Record<string, unknown>, link: { seq: number; prevHash: string; hash?: string }): Record<string, unknown> {
  const unmapped = (event.unmapped ?? {}) as Record<string, unknown>;
  return { ...event, unmapped: { ...unmapped, chain: link } };
}

/** SHA-256 hex of the RFC 8785 canonical form of the event as exported, without `unmapped.chain.hash`. */
export function chainHash(event: Record<string, unknown>, seq: number, prevHash: string): string {
  const text = canonicalize(exportedEvent(event, { seq, prevHash }));
  if (text === undefined) throw new Error('audit event cannot be canonicalised');
  return createHash('sha256').update(text).digest('hex');
}
