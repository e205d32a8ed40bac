import { HTTP_STATUS_OF_KIND } from '@app/common';
import { invalidClient, OAuthError, OAuthPageError } from './oauth.errors';

describe('OAuth errors carry a kind, not a status', () => {
  it.each([
    ['OAuthError invalid_request', 'invalid_input', 400, new OAuthError('invalid_request', 'x')],
    ['OAuthError invalid_grant', 'invalid_input', 400, new OAuthError('invalid_grant', 'x')],
    ['OAuthError invalid_client', 'unauthenticated', 401, invalidClient('x', false)],
    ['OAuthError temporarily_unavailable', 'rate_limited', 429, new OAuthError('temporarily_unavailable', 'x', { retryAfterSeconds: 30 })],
    ['OAuthPageError 403', 'forbidden', 403, new OAuthPageError(403, 'Form expired', 'x')],
    ['OAuthPageError 400', 'invalid_input', 400, new OAuthPageError(400, 'Invalid request', 'x')],
    ['OAuthPageError 429', 'rate_limited', 429, new OAuthPageError(429, 'Application could not be verified yet', 'x', 30)],
  ] as const)('%s is %s (HTTP %d)', (_name, kind, status, error) => {
    expect(error.kind).toBe(kind);
    expect(HTTP_STATUS_OF_KIND[error.kind]).toBe(status);
  });

  it('remembers that HTTP Basic was tried, for the challenge', () => {
    expect(invalidClient('x', true).basicChallenge).toBe(true);
    expect(invalidClient('x', false).basicChallenge).toBe(false);
  });
});
