import { createHash } from 'node:crypto';
import { isOwnResource, parseBasicCredentials, permissionsFromScope, verifyPkce } from './oauth-params';

describe('OAuth parameters', () => {
  it('verifies S256 PKCE (RFC 7636 appendix B)', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    expect(verifyPkce(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
    expect(verifyPkce(`${verifier}x`, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(false);
    const short = 'abc';
    expect(verifyPkce(short, createHash('sha256').update(short).digest('base64url'))).toBe(false);
  });

  it('reads permissions from scope, ignoring unknown scopes and offline_access', () => {
    expect(permissionsFromScope('tasks:read offline_access openid project:read')).toEqual(['project:read', 'tasks:read']);
    expect(permissionsFromScope('offline_access')).toBeUndefined();
    expect(permissionsFromScope(undefined)).toBeUndefined();
  });

  it('accepts its own resource with or without one trailing slash', () => {
    expect(isOwnResource('https://h/api/mcp', 'https://h/api/mcp')).toBe(true);
    expect(isOwnResource('https://h/api/mcp/', 'https://h/api/mcp')).toBe(true);
    expect(isOwnResource('https://h/api/mcp//', 'https://h/api/mcp')).toBe(false);
    expect(isOwnResource('https://other/api/mcp', 'https://h/api/mcp')).toBe(false);
  });

  it('form-url-decodes HTTP Basic client credentials (RFC 6749 §2.3.1)', () => {
    const header = `Basic ${Buffer.from('my%3Aclient+id:s%2Bcret%25').toString('base64')}`;
    expect(parseBasicCredentials(header)).toEqual({ clientId: 'my:client id', clientSecret: 's+cret%' });
    expect(parseBasicCredentials('Basic !!!')).toBeUndefined();
    expect(parseBasicCredentials(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
  });
});
