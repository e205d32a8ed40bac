const UNSTORABLE_RE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Text PostgreSQL cannot store as given: a NUL character (`invalid byte sequence for encoding
 * "UTF8": 0x00`, a 500 if it reached a query) or an unpaired UTF-16 surrogate (silently stored
 * as U+FFFD, so what was saved is not what was sent).
 */
export function isUnstorableText(text: string): boolean {
  return UNSTORABLE_RE.test(text);
}

/**
 * Where in a parsed value (object keys included) the first unstorable text is, or undefined.
 * The walk keeps the keys and indexes it is under on one stack and spells the path out only
 * when it finds something, so the walk that finds nothing (every request) builds no strings.
 */
export function findUnstorableText(value: unknown): { path: string } | undefined {
  const trail: (string | number)[] = [];
  return walk(value, trail, 0) ? { path: spell(trail) } : undefined;
}

/** True when `value` holds unstorable text; `trail` then names where (else it is left as it came). */
function walk(value: unknown, trail: (string | number)[], depth: number): boolean {
  if (typeof value === 'string') return isUnstorableText(value);
  if (value === null || typeof value !== 'object' || depth > 100) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      trail.push(i);
      if (walk(value[i], trail, depth + 1)) return true;
      trail.pop();
    }
    return false;
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    trail.push(key);
    if (isUnstorableText(key) || walk((value as Record<string, unknown>)[key], trail, depth + 1)) return true;
    trail.pop();
  }
  return false;
}

/** `a[2].b` for the trail `a`, 2, `b`. */
function spell(trail: readonly (string | number)[]): string {
  let path = '';
  for (const step of trail) path = typeof step === 'number' ? `${path}[${step}]` : path ? `${path}.${step}` : step;
  return path;
}

/**
 * At most `max` UTF-16 units of `text`, one fewer where the cut would split a surrogate pair: a
 * lone half is unstorable (`isUnstorableText`), and a record holding one fails its whole write.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
