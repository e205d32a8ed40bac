import { sessionReachRefusal } from './session-reach.service';

const X = 'https://idp-x.example.test';
const Y = 'https://idp-y.example.test';

describe('sessionReachRefusal: what a session opens in an organisation its person belongs to', () => {
  it.each([
    ['password session, no identity provider', null, null, null],
    ['password session, identity provider without require single sign-on', null, { issuer: X, requireSso: false }, null],
    ['password session, single sign-on required', null, { issuer: X, requireSso: true }, 'sso_required'],
    ['single sign-on through X, identity provider X', X, { issuer: X, requireSso: false }, null],
    ['single sign-on through X, identity provider X requiring it', X, { issuer: X, requireSso: true }, null],
    ['single sign-on through X, identity provider Y (SPEC §10 relaxes §9)', X, { issuer: Y, requireSso: false }, null],
    ['single sign-on through X, identity provider Y requiring it', X, { issuer: Y, requireSso: true }, 'sso_required'],
    ['single sign-on through X, no identity provider (SPEC §10 relaxes §9)', X, null, null],
  ] as const)('%s', (_name, ssoIssuer, rule, expected) => {
    expect(sessionReachRefusal({ ssoIssuer }, rule)).toBe(expected);
  });
});
