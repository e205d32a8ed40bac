import type { IdTokenClaims } from './id-token.verifier';
import { isRecent } from './sso-step-up.service';

/** The step-up's `auth_time` rule (docs/policy.md, "The single sign-on step-up"), by the database's clock. */
describe('a step-up answer is recent', () => {
  const startedAt = 1_800_000_000;
  const now = startedAt + 30;
  const claims = (authTime: unknown) => ({ iss: 'https://idp.example', sub: 'ann', auth_time: authTime }) as IdTokenClaims;

  it.each([
    ['a sign-in after the step-up started', startedAt + 10, true],
    ['a sign-in at the start', startedAt, true],
    ['a sign-in up to 60 s (clock skew) before the start', startedAt - 60, true],
    ['a sign-in more than 60 s before the start', startedAt - 61, false],
    ['a sign-in up to 60 s ahead of the database clock', now + 60, true],
    ['a sign-in further in the future', now + 61, false],
    ['no auth_time', undefined, false],
    ['auth_time as a string', String(startedAt + 10), false],
    ['auth_time not finite', Number.NaN, false],
  ])('%s → %s', (_what, authTime, expected) => {
    expect(isRecent(claims(authTime), { startedAt, now })).toBe(expected);
  });

  it('refuses a sign-in older than 15 minutes even when the step-up started long ago', () => {
    expect(isRecent(claims(startedAt), { startedAt, now: startedAt + 15 * 60 })).toBe(true);
    expect(isRecent(claims(startedAt), { startedAt, now: startedAt + 15 * 60 + 1 })).toBe(false);
  });
});
