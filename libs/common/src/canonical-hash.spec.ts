import { createHash } from 'node:crypto';
import { canonicalSha256 } from './canonical-hash';

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
