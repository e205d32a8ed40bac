import { HTTP_STATUS_OF_KIND } from '@app/common';
import { invalidClient, OAuthError, OAuthPageError } from './oauth.errors';

describe('OAuth errors carry a kind, not a status', () => {
  it.each([
    [new OAuthError('invalid_request', 'x'), 'invalid_input', 400],
    [new OAuthError('invalid_grant', 'x'), 'invalid_input', 400],
    [invalidClient('x', false), 'unauthenticated', 401],
    [new OAuthError('temporarily_unavailable', 'x', { retryAfterSeconds: 30 }), 'rate_limited', 429],
    [new OAuthPageError(403, 'Form expired', 'x'), 'forbidden', 403],
    [new OAuthPageError(400, 'Invalid request', 'x'), 'invalid_input', 400],
    [new OAuthPageError(429, 'Application could not be verified yet', 'x', 30), 'rate_limited', 429],
  ] as const)('%s is %s (HTTP %d)', (error, kind, status) => {
    expect(error.kind).toBe(kind);
    expect(HTTP_STATUS_OF_KIND[error.kind]).toBe(status);
  });

  it('remembers that HTTP Basic was tried, for the challenge', () => {
    expect(invalidClient('x', true).basicChallenge).toBe(true);
    expect(invalidClient('x', false).basicChallenge).toBe(false);
  });
});
