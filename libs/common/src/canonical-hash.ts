import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * SHA-256 (hex) of the RFC 8785 canonical JSON of a value: what audit records and approvals keep
 * of a call's arguments, and the hash of a policy's rules or an approval's binding.
 */
export function canonicalSha256(value: unknown): string {
  return createHash('sha256').update(canonicalize(value) ?? 'null').digest('hex');
}
