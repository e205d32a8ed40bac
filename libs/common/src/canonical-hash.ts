import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** Thrown inside `plainCanonical` at the first value that is not plain JSON data. */
const NOT_PLAIN = Symbol('not plain JSON data');

/**
 * The RFC 8785 canonical form of plain JSON data: null, booleans, finite numbers, strings, arrays
 * without holes, and objects whose prototype is `Object.prototype` (or null) and whose values are
 * all of these — what JSON.parse, and so the database driver, gives back. Written by hand because
 * it is on the path of every audit record (the chain hash of each one when it is sealed and when
 * a chain is verified, the arguments' hash of each read), where the `canonicalize` package costs
 * two to four times as much (a reduce and template strings per value). It follows the package
 * step by step, so its output is the package's byte for byte: a string or a key is
 * `JSON.stringify`'s text; a finite number is `String(n)`, the same Number::toString that
 * `JSON.stringify` applies (-0 included); an object's keys are `Object.keys(…).sort()` (UTF-16
 * code units, RFC 8785 §3.2.3), joined as the package joins them. Anything else — `toJSON`,
 * undefined, symbols, functions, bigints, NaN and infinities, holes, class instances — is handed
 * to the package whole, which keeps its behaviour (it skips, converts or throws) for those.
 * `canonical-hash.spec.ts` compares the two on every kind of audit event and on generated data.
 */
function plainCanonical(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      throw NOT_PLAIN;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw NOT_PLAIN;
      text += (i === 0 ? '' : ',') + plainCanonical(value[i]);
    }
    return `${text}]`;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if ((prototype !== Object.prototype && prototype !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    text += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${plainCanonical(object[keys[i]])}`;
  }
  return `${text}}`;
}

/** The RFC 8785 canonical JSON text of a value (undefined for a value the package gives none for, e.g. undefined). */
export function canonicalJson(value: unknown): string | undefined {
  try {
    return plainCanonical(value);
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return canonicalize(value);
  }
}

/**
 * SHA-256 (hex) of the RFC 8785 canonical JSON of a value: what audit records and approvals keep
 * of a call's arguments, and the hash of a policy's rules or an approval's binding.
 */
export function canonicalSha256(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value) ?? 'null').digest('hex');
}
