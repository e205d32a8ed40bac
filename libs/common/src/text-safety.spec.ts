import { clipText, findUnstorableText, isUnstorableText } from './text-safety';

describe('unstorable text', () => {
  it('finds NUL and unpaired surrogates, not paired ones', () => {
    expect(isUnstorableText('a\u0000b')).toBe(true);
    expect(isUnstorableText('\ud800')).toBe(true);
    expect(isUnstorableText('x\udc00')).toBe(true);
    expect(isUnstorableText('😀 ok')).toBe(false);
    expect(isUnstorableText('plain')).toBe(false);
  });

  it('walks values and keys', () => {
    expect(findUnstorableText({ a: [1, 'ok', { b: 'x\u0000' }] })).toEqual({ path: 'a[2].b' });
    expect(findUnstorableText({ ['k\u0000']: 1 })).toEqual({ path: 'k\u0000' });
    expect(findUnstorableText({ a: 'fine', n: null, t: true })).toBeUndefined();
    // A clean branch walked before the finding leaves nothing of itself in the path.
    expect(findUnstorableText({ a: { b: 'ok', c: ['ok'] }, d: [['ok', 'x\ud800']] })).toEqual({ path: 'd[0][1]' });
    expect(findUnstorableText(['ok', 'x\u0000'])).toEqual({ path: '[1]' });
    expect(findUnstorableText('x\u0000')).toEqual({ path: '' });
  });

  it('clips text without splitting a surrogate pair', () => {
    expect(clipText('abcdef', 4)).toBe('abcd');
    expect(clipText('abc', 4)).toBe('abc');
    expect(clipText('abc😀', 4)).toBe('abc');
    expect(clipText('ab😀', 4)).toBe('ab😀');
    expect(isUnstorableText(clipText(`${'a'.repeat(99)}😀`, 100))).toBe(false);
  });
});
