import { cacheLifetimeSeconds, validateClientMetadata } from './document-validation';

const URL_ = 'https://app.example.com/oauth/client.json';
const good = { client_id: URL_, client_name: 'Example App', redirect_uris: ['https://app.example.com/cb', 'http://127.0.0.1/cb'] };

function problem(doc: unknown): string | undefined {
  try {
    validateClientMetadata(typeof doc === 'string' ? doc : JSON.stringify(doc), URL_);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('client metadata document validation', () => {
  it('accepts a public client document and keeps what the server uses', () => {
    expect(validateClientMetadata(JSON.stringify({ ...good, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], logo_uri: 'https://app.example.com/logo.png' }), URL_)).toEqual({
      clientId: URL_,
      clientName: 'Example App',
      redirectUris: good.redirect_uris,
      tokenEndpointAuthMethod: 'none',
    });
  });

  it.each([
    ['not json', 'is not valid JSON'],
    [[good], 'must be a JSON object'],
    [{ ...good, client_id: undefined }, 'has no client_id'],
    [{ ...good, client_id: 'https://evil.example.com/oauth/client.json' }, 'has a client_id that differs from the URL it was fetched from'],
    [{ ...good, client_id: `${URL_}/` }, 'differs from the URL'],
    [{ ...good, client_secret: 'x' }, 'must not carry a client_secret'],
    [{ ...good, token_endpoint_auth_method: 'client_secret_basic' }, 'token_endpoint_auth_method "none"'],
    [{ ...good, token_endpoint_auth_method: 'private_key_jwt' }, 'token_endpoint_auth_method "none"'],
    [{ ...good, client_name: undefined }, 'must have a client_name string'],
    [{ ...good, client_name: '   ' }, 'non-empty client_name'],
    [{ ...good, client_name: 'x'.repeat(201) }, 'at most 200 characters'],
    [{ ...good, client_name: 'Example\u202eppA' }, 'client_name without control characters or bidirectional formatting characters'],
    [{ ...good, client_name: 'Example\nApp' }, 'client_name without control characters or bidirectional formatting characters'],
    [{ ...good, client_name: 'Example\u2066App\u2069' }, 'client_name without control characters or bidirectional formatting characters'],
    [{ ...good, redirect_uris: [] }, 'at least one redirect URI'],
    [{ ...good, redirect_uris: 'https://app.example.com/cb' }, 'at least one redirect URI'],
    [{ ...good, redirect_uris: ['javascript:alert(1)'] }, 'redirect_uris[0]: it the scheme javascript: is not allowed'],
    [{ ...good, redirect_uris: ['https://app.example.com/cb', 'http://app.example.com/cb'] }, 'redirect_uris[1]: it http is only allowed on a loopback host'],
    [{ ...good, grant_types: ['client_credentials'] }, 'authorization_code grant'],
    [{ ...good, response_types: ['token'] }, 'code response type'],
  ])('refuses %j', (doc, expected) => {
    expect(problem(doc)).toContain(expected);
  });
});

describe('cache lifetime of a document', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it.each([
    [{}, 300],
    [{ 'cache-control': 'max-age=3600' }, 3600],
    [{ 'cache-control': 'public, max-age=60' }, 300],
    [{ 'cache-control': 'max-age=999999' }, 86400],
    [{ 'cache-control': 's-maxage=7200, max-age=60' }, 7200],
    [{ 'cache-control': 'no-store' }, 0],
    [{ 'cache-control': 'no-cache, max-age=3600' }, 0],
    [{ expires: 'Mon, 23 Nov 2026 14:00:00 GMT', date: 'Mon, 23 Nov 2026 12:00:00 GMT' }, 7200],
    [{ expires: 'Mon, 23 Nov 2026 13:00:00 GMT' }, 3600],
    [{ expires: '0' }, 300],
    [{ 'cache-control': 'max-age=1800', expires: 'Mon, 23 Nov 2026 18:00:00 GMT' }, 1800],
  ])('%j → %d s', (headers, seconds) => {
    expect(cacheLifetimeSeconds(headers, now)).toBe(seconds);
  });
});
