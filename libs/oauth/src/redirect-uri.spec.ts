import { matchRedirectUri, redirectHost, redirectUriProblem, withResponseParams } from './redirect-uri';

describe('redirect URI matching', () => {
  it('matches registered URIs exactly', () => {
    expect(matchRedirectUri(['https://a.example/cb'], 'https://a.example/cb')).toBe(true);
    expect(matchRedirectUri(['https://a.example/cb'], 'https://a.example/cb/')).toBe(false);
    expect(matchRedirectUri(['https://a.example/cb'], 'https://A.example/cb')).toBe(false);
    expect(matchRedirectUri(['https://a.example/cb'], 'https://a.example:443/cb')).toBe(false);
    expect(matchRedirectUri(['https://a.example/cb'], 'https://a.example/cb?x=1')).toBe(false);
    expect(matchRedirectUri(['cursor://x/cb'], 'cursor://x/cb')).toBe(true);
    expect(matchRedirectUri(['cursor://x/cb'], 'cursor://x/cb2')).toBe(false);
  });

  it('ignores the port of loopback URIs only (RFC 8252 §7.3)', () => {
    expect(matchRedirectUri(['http://127.0.0.1:33418/'], 'http://127.0.0.1:52001/')).toBe(true);
    expect(matchRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:9/cb')).toBe(true);
    expect(matchRedirectUri(['http://[::1]:1/cb'], 'http://[::1]:2/cb')).toBe(true);
    expect(matchRedirectUri(['http://localhost:1/cb'], 'http://localhost:2/cb')).toBe(true);
    expect(matchRedirectUri(['http://127.0.0.1:1/cb'], 'http://127.0.0.1:2/other')).toBe(false);
    expect(matchRedirectUri(['http://127.0.0.1:1/cb'], 'http://localhost:1/cb')).toBe(false);
    expect(matchRedirectUri(['http://127.0.0.1:1/cb'], 'https://127.0.0.1:2/cb')).toBe(false);
    expect(matchRedirectUri(['http://127.0.0.1:1/cb'], 'http://127.0.0.1:2/cb#x')).toBe(false);
    expect(matchRedirectUri(['https://a.example:1/cb'], 'https://a.example:2/cb')).toBe(false);
    expect(matchRedirectUri(['http://127.0.0.1:1/cb'], 'http://127.0.0.1.evil.example:1/cb')).toBe(false);
  });

  it('appends response parameters and keeps the registered query as it is', () => {
    expect(withResponseParams('https://a.example/cb?x=a%20b', { code: 'c', state: null, iss: 'http://h' })).toBe(
      'https://a.example/cb?x=a%20b&code=c&iss=http%3A%2F%2Fh',
    );
    expect(withResponseParams('com.example.app:/cb', { error: 'access_denied' })).toBe('com.example.app:/cb?error=access_denied');
  });

  it('names the destination host', () => {
    expect(redirectHost('http://127.0.0.1:33418/')).toBe('127.0.0.1:33418');
    expect(redirectHost('cursor://anysphere.cursor-retrieval/oauth')).toBe('anysphere.cursor-retrieval');
    expect(redirectHost('com.example.app:/cb')).toBe('com.example.app:');
  });
});

describe('redirect URI schemes (SPEC §8)', () => {
  it('refuses the schemes that open something on the machine, whatever the extra list says', () => {
    for (const uri of ['intent:x', 'ms-msdt:x', 'ms-settings:x', 'search-ms:x', 'chrome://x', 'chrome-extension://x/y', 'jar:x', 'about:blank', 'blob:x']) {
      expect(redirectUriProblem(uri, ['intent', 'ms-msdt', 'chrome', 'jar'])).toMatch(/is not allowed/);
    }
  });

  it('accepts a scheme with a dot, or one listed; refuses other bare schemes', () => {
    expect(redirectUriProblem('com.example.app:/cb')).toBeUndefined();
    expect(redirectUriProblem('cursor://x/cb')).toBeUndefined();
    expect(redirectUriProblem('myapp://cb')).toMatch(/reverse-domain/);
    expect(redirectUriProblem('myapp://cb', ['myapp'])).toBeUndefined();
    expect(redirectUriProblem('cursor://x/cb', [])).toMatch(/not allowed/);
  });

  it('reads the host of an http(s) URI from its raw text', () => {
    expect(redirectUriProblem('https:///cb')).toBe('must name a host');
    expect(redirectUriProblem('https:/cb')).toBe('must name a host');
    expect(redirectUriProblem('https://a.example/cb')).toBeUndefined();
    expect(redirectUriProblem('https://a.example\\@b.example/')).toBe('must not contain a backslash');
  });
});
