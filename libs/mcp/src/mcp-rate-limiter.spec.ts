import { FixedWindowCounter } from './mcp-rate-limiter';

describe('FixedWindowCounter', () => {
  it('lets `limit` requests per key through in a window, then answers the seconds left', () => {
    const counter = new FixedWindowCounter(2, 60_000);
    const t0 = 1_800_000_000_000; // a window boundary (a multiple of 60 s)
    expect(counter.take('a', t0 + 1_000)).toBeUndefined();
    expect(counter.take('a', t0 + 2_000)).toBeUndefined();
    expect(counter.take('a', t0 + 20_500)).toBe(40);
    expect(counter.take('b', t0 + 20_500)).toBeUndefined();
  });

  it('starts again at the next window and forgets the keys of the last one', () => {
    const counter = new FixedWindowCounter(1, 60_000);
    const t0 = 1_800_000_000_000;
    counter.take('a', t0);
    counter.take('b', t0);
    expect(counter.take('a', t0 + 59_999)).toBe(1);
    expect(counter.take('a', t0 + 60_000)).toBeUndefined();
    expect(counter.size).toBe(1);
  });
});
