import { ClientMetadataError } from './client-metadata.errors';
import { isClientIdUrl, parseClientIdUrl } from './client-id-url';

function problem(url: string, allowLoopback = false): string | undefined {
  try {
    parseClientIdUrl(url, allowLoopback);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ClientMetadataError);
    return (error as Error).message;
  }
}

describe('client_id URLs of metadata documents', () => {
  it('tells a metadata-document client_id from a registered one', () => {
    expect(isClientIdUrl('https://app.example.com/client.json')).toBe(true);
    expect(isClientIdUrl('3f1c2a9e-8d57-4c1e-9a43-0d6a4b1c2e11')).toBe(false);
    expect(isClientIdUrl('http://127.0.0.1:4000/client.json')).toBe(false);
    expect(isClientIdUrl('http://127.0.0.1:4000/client.json', true)).toBe(true);
  });

  it('accepts an https URL with a path, a port or a deep path', () => {
    expect(problem('https://app.example.com/oauth/client.json')).toBeUndefined();
    expect(problem('https://app.example.com:8443/client')).toBeUndefined();
    expect(problem('https://app.example.com/a/b/c/metadata')).toBeUndefined();
  });

  it.each([
    ['http://app.example.com/client.json', 'must use https'],
    ['https://app.example.com/', 'must have a path'],
    ['https://app.example.com', 'must have a path'],
    ['https://app.example.com/client.json#x', 'must not contain a fragment'],
    ['https://user:pw@app.example.com/client.json', 'must not contain user info'],
    ['https://user@app.example.com/client.json', 'must not contain user info'],
    ['https://app.example.com/client.json?secret=1', 'must not contain a query'],
    ['https://app.example.com/a/../client.json', 'must not contain . or .. path segments'],
    ['https://app.example.com/a/./client.json', 'must not contain . or .. path segments'],
    ['https://app.example.com/a/%2e%2E/client.json', 'must not contain . or .. path segments'],
    ['https://APP.example.com/client.json', 'canonical form (lower-case host, no default port)'],
    ['https://app.example.com:443/client.json', 'canonical form (lower-case host, no default port)'],
    ['HTTPS://app.example.com/client.json', 'canonical form (lower-case scheme)'],
    ['https://app.example.com/a b', 'whitespace'],
    ['https:///client.json', 'must have a path'],
    [`https://app.example.com/${'a'.repeat(2000)}`, 'at most 2000 characters'],
  ])('refuses %s', (url, expected) => {
    expect(problem(url)).toContain(expected);
  });

  it('never echoes user info in the message', () => {
    expect(problem('https://alice:s3cret@app.example.com/client.json')).not.toContain('s3cret');
  });

  it('accepts http only with the development switch', () => {
    expect(problem('http://127.0.0.1:4000/client.json')).toBe('The client_id URL must use https');
    expect(problem('http://127.0.0.1:4000/client.json', true)).toBeUndefined();
  });
});
