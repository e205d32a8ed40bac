import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { canonicalJson, canonicalSha256 } from './canonical-hash';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('canonicalSha256', () => {
  it.each([
    [{ b: 1, a: [2, 'x'] }, '{"a":[2,"x"],"b":1}'],
    [{ a: 2, b: 1 }, '{"a":2,"b":1}'],
    [{ n: 1.5e21, s: 'é' }, '{"n":1.5e+21,"s":"é"}'],
    [{}, '{}'],
    [undefined, 'null'],
  ])('hashes %j as the RFC 8785 text %s', (value, canonical) => {
    expect(canonicalSha256(value)).toBe(sha256(canonical));
  });

  it('is the same for the same object written in another key order', () => {
    expect(canonicalSha256({ title: 't', id: 1 })).toBe(canonicalSha256({ id: 1, title: 't' }));
  });
});

/** A small seeded generator, so that a failure names a value that can be made again. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const NUMBERS = [0, -0, 1, -1, 0.1, 1 / 3, 1e21, 1.5e21, 1e-7, 5e-324, 1.7976931348623157e308, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, -123.456e-10, 1764000025000.5];
  const PIECES = ['a', 'Z', 'é', '€', '😀', '\u0000', '\u001f', '"', '\\', '/', '\n', '\u2028', '\ud800', '\udfff', '10', '9', '', ' ', 'tool', 'ą', '\uffff'];
  const text = () => Array.from({ length: Math.floor(next() * 6) }, () => pick(PIECES)).join('');
  const value = (depth: number): unknown => {
    const kind = Math.floor(next() * (depth > 3 ? 4 : 6));
    if (kind === 0) return pick([null, true, false]);
    if (kind === 1) return next() < 0.5 ? pick(NUMBERS) : (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
    if (kind === 2) return Math.floor(next() * 2 ** 40) - 2 ** 39;
    if (kind === 3) return text();
    if (kind === 4) return Array.from({ length: Math.floor(next() * 5) }, () => value(depth + 1));
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 6); i > 0; i--) object[next() < 0.2 ? String(Math.floor(next() * 20)) : text()] = value(depth + 1);
    return object;
  };
  return value;
}

describe('canonicalJson', () => {
  it('is the canonicalize package’s text, byte for byte, for 5000 generated JSON values (unicode, numbers, integer-like keys)', () => {
    const value = generator(39);
    for (let i = 0; i < 5000; i++) {
      const v = value(0);
      expect([i, canonicalJson(v)]).toEqual([i, canonicalize(v)]);
      const parsed: unknown = JSON.parse(JSON.stringify(v));
      expect([i, canonicalJson(parsed)]).toEqual([i, canonicalize(parsed)]);
    }
  });

  it('hands what is not plain JSON data to the package, which skips, converts or refuses it as before', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const holes = [1, , 3];
    const values: unknown[] = [
      undefined,
      { a: undefined, b: 1 },
      [undefined, Symbol('s'), 2],
      { at: new Date(0), toJSONLike: { toJSON: () => ({ z: 1, a: 2 }) } },
      new Point(2, 1),
      Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
      holes,
      { fn: () => 1 },
      { toJSON: 'not a function', a: 1 },
    ];
    for (const v of values) expect(canonicalJson(v)).toBe(canonicalize(v));
    for (const v of [NaN, { n: Infinity }, [-Infinity]]) expect(() => canonicalJson(v)).toThrow(/not allowed/);
  });
});
