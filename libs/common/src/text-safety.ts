const UNSTORABLE_RE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Text PostgreSQL cannot store as given: a NUL character (`invalid byte sequence for encoding
 * "UTF8": 0x00`, a 500 if it reached a query) or an unpaired UTF-16 surrogate (silently stored
 * as U+FFFD, so what was saved is not what was sent).
 */
export function isUnstorableText(text: string): boolean {
  return UNSTORABLE_RE.test(text);
}

/** Where in a parsed value (object keys included) the first unstorable text is, or undefined. */
export function findUnstorableText(value: unknown, path = '', depth = 0): { path: string } | undefined {
  if (typeof value === 'string') return isUnstorableText(value) ? { path } : undefined;
  if (value === null || typeof value !== 'object' || depth > 100) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const child = path ? `${path}.${key}` : key;
    if (isUnstorableText(key)) return { path: child };
    const found = findUnstorableText(inner, child, depth + 1);
    if (found) return found;
  }
  return undefined;
}
