import fc from 'fast-check';
import { credentialForm, generateToken, hashToken, isWellFormedToken, TOKEN_PREFIXES } from './token-format';

describe('token format', () => {
  it.each(Object.values(TOKEN_PREFIXES))('generates well-formed %s tokens of a fixed length', (prefix) => {
    const token = generateToken(prefix);
    expect(token.startsWith(prefix)).toBe(true);
    expect(token).toHaveLength(prefix.length + 43 + 6);
    expect(token.slice(prefix.length)).toMatch(/^[0-9A-Za-z]+$/);
    expect(isWellFormedToken(token, prefix)).toBe(true);
  });

  it('never repeats a secret', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => generateToken('dga_')));
    expect(seen.size).toBe(2000);
  });

  it('rejects any single-character change (the checksum catches typos)', () => {
    const token = generateToken('dga_');
    fc.assert(
      fc.property(fc.integer({ min: 4, max: token.length - 1 }), fc.constantFrom(...'0123456789abcXYZ'), (index, ch) => {
        fc.pre(token[index] !== ch);
        const typo = token.slice(0, index) + ch + token.slice(index + 1);
        expect(isWellFormedToken(typo, 'dga_')).toBe(false);
      }),
    );
  });

  it('rejects wrong prefix, wrong length and foreign characters', () => {
    const token = generateToken('dga_');
    expect(isWellFormedToken(token, 'dgr_')).toBe(false);
    expect(isWellFormedToken(token.slice(0, -1), 'dga_')).toBe(false);
    expect(isWellFormedToken(`${token}0`, 'dga_')).toBe(false);
    expect(isWellFormedToken(`dga_${'-'.repeat(49)}`, 'dga_')).toBe(false);
    expect(isWellFormedToken('dga_', 'dga_')).toBe(false);
  });

  it('hashes to a stable SHA-256 hex digest that is not the secret', () => {
    const token = generateToken('rk_');
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).not.toContain(token);
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('classifies credentials by form', () => {
    expect(credentialForm(generateToken('dga_'))).toBe('agent_token');
    expect(credentialForm('dga_garbage')).toBe('agent_token');
    expect(credentialForm(generateToken('rk_'))).toBe('api_key');
    expect(credentialForm('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe('session_jwt');
    expect(credentialForm('dgr_abc')).toBe('unrecognised');
    expect(credentialForm('hello')).toBe('unrecognised');
  });
});
