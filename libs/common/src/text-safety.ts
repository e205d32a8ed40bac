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
 * The walk that finds nothing (every request) builds no paths; only a value that has such text
 * is walked again to name where.
 */
export function findUnstorableText(value: unknown): { path: string } | undefined {
  return hasUnstorableText(value, 0) ? locateUnstorableText(value, '', 0) : undefined;
}

function hasUnstorableText(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return UNSTORABLE_RE.test(value);
  if (value === null || typeof value !== 'object' || depth > 100) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (hasUnstorableText(value[i], depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (UNSTORABLE_RE.test(key) || hasUnstorableText((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

function locateUnstorableText(value: unknown, path: string, depth: number): { path: string } | undefined {
  if (typeof value === 'string') return isUnstorableText(value) ? { path } : undefined;
  if (value === null || typeof value !== 'object' || depth > 100) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = locateUnstorableText(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const child = path ? `${path}.${key}` : key;
    if (isUnstorableText(key)) return { path: child };
    const found = locateUnstorableText(inner, child, depth + 1);
    if (found) return found;
  }
  return undefined;
}
