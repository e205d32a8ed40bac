import { RefusedTokens } from './refused-tokens';

describe('RefusedTokens', () => {
  it('remembers a refused digest', () => {
    const refused = new RefusedTokens(3);
    expect(refused.has('a')).toBe(false);
    refused.add('a');
    expect(refused.has('a')).toBe(true);
    expect(refused.has('b')).toBe(false);
  });

  it('holds at most its capacity, dropping the oldest first', () => {
    const refused = new RefusedTokens(3);
    for (const d of ['a', 'b', 'c', 'd']) refused.add(d);
    expect(refused.size).toBe(3);
    expect(refused.has('a')).toBe(false);
    expect(['b', 'c', 'd'].every((d) => refused.has(d))).toBe(true);
  });

  it('keeps dropping the oldest first as digests keep coming, past many turns of its capacity', () => {
    const refused = new RefusedTokens(100);
    for (let i = 0; i < 10_050; i++) refused.add(`d${i}`);
    expect(refused.size).toBe(100);
    expect(refused.has('d9949')).toBe(false);
    for (let i = 9_950; i < 10_050; i++) expect(refused.has(`d${i}`)).toBe(true);
  });

  it('counts a digest added twice once', () => {
    const refused = new RefusedTokens(2);
    refused.add('a');
    refused.add('a');
    refused.add('b');
    expect(refused.has('a')).toBe(true);
    expect(refused.size).toBe(2);
  });
});
