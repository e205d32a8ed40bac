/**
 * Reads one parameter from a query or form body. A parameter sent more than once is an error
 * (for OAuth, RFC 6749 §3.1, §3.2): the caller gets `{ duplicate: true }`; an empty one is absent.
 */
export function singleParam(source: Record<string, unknown> | undefined, name: string): { value?: string; duplicate?: true } {
  const raw = source?.[name];
  if (raw === undefined || raw === null) return {};
  if (Array.isArray(raw)) return { duplicate: true };
  if (typeof raw === 'number' || typeof raw === 'boolean') return { value: String(raw) };
  if (typeof raw !== 'string') return { duplicate: true };
  return raw === '' ? {} : { value: raw };
}
