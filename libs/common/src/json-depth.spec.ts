import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';

function nested(levels: number): unknown {
  return JSON.parse('['.repeat(levels) + ']'.repeat(levels));
}

describe('exceedsJsonDepth', () => {
  it('counts a scalar as depth 0 and each object or array as one level', () => {
    expect(exceedsJsonDepth(1, 0)).toBe(false);
    expect(exceedsJsonDepth({}, 0)).toBe(true);
    expect(exceedsJsonDepth({}, 1)).toBe(false);
    expect(exceedsJsonDepth({ a: [1] }, 1)).toBe(true);
    expect(exceedsJsonDepth({ a: [1] }, 2)).toBe(false);
  });

  it('accepts exactly the limit and refuses one level more', () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('finds a deep branch beside shallow ones', () => {
    const body = { jsonrpc: '2.0', id: 1, params: { a: 1, b: [1, 2], c: { d: nested(MAX_JSON_DEPTH) } } };
    expect(exceedsJsonDepth(body)).toBe(true);
  });

  it('handles a megabyte of nesting without overflowing the stack', () => {
    expect(exceedsJsonDepth(nested(500_000))).toBe(true);
  });
});
