import type { ProvisionedUserFilter } from '@app/identity';
import { ScimError } from './scim.errors';

const FILTER_RE = /^\s*([A-Za-z][\w.:-]*)\s+([A-Za-z]+)\s+"((?:[^"\\]|\\.)*)"\s*$/;
const ATTRIBUTES: Record<string, 'userName' | 'externalId' | 'id'> = { username: 'userName', externalid: 'externalId', id: 'id' };

/**
 * The list's `filter` (RFC 7644 §3.4.2.2), in the form identity providers send to find a person
 * before creating them: `userName eq "…"`, `externalId eq "…"` or `id eq "…"` (attribute names
 * and the operator in any case). Anything else is refused with `invalidFilter`.
 */
export function parseFilter(filter: unknown): ProvisionedUserFilter {
  if (filter === undefined) return null;
  if (typeof filter !== 'string') throw ScimError.invalidFilter('filter must be given once');
  if (filter.length > 512) throw ScimError.invalidFilter('filter is too long');
  const match = FILTER_RE.exec(filter);
  if (!match) throw ScimError.invalidFilter('filter must have the form userName eq "value" (or externalId, id)');
  const [, attribute, operator, raw] = match as unknown as [string, string, string, string];
  const name = ATTRIBUTES[attribute.toLowerCase()];
  if (!name) throw ScimError.invalidFilter(`Filtering on ${attribute.slice(0, 100)} is not supported: use userName, externalId or id`);
  if (operator.toLowerCase() !== 'eq') throw ScimError.invalidFilter(`The operator ${operator.slice(0, 20)} is not supported: use eq`);
  return { attribute: name, value: raw.replace(/\\(.)/g, '$1') };
}

/** A query parameter that must be an integer (`startIndex`, `count`); absent: undefined. */
export function queryInteger(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^-?\d{1,9}$/.test(value)) throw ScimError.invalidValue(`${name} must be an integer`);
  return Number(value);
}
