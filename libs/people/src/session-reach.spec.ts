import { organizationRefusal, sessionReachRefusal } from './session-reach.service';

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

describe('organizationRefusal: what a session opens in an organisation its person is a member of', () => {
  const password = { ssoIssuer: null };
  const viaX = { ssoIssuer: X };
  const noIdp = null;
  const idpX = { issuer: X, requireSso: false };
  const idpXRequired = { issuer: X, requireSso: true };
  const idpYRequired = { issuer: Y, requireSso: true };

  it.each([
    ['password session, membership older than the session, no identity provider', password, false, noIdp, null],
    ['password session, membership older than the session, identity provider not required', password, false, idpX, null],
    ['password session, membership older than the session, single sign-on required', password, false, idpXRequired, 'sso_required'],
    ['single sign-on through X, membership older than the session, X required', viaX, false, idpXRequired, null],
    ['single sign-on through X, membership older than the session, Y required', viaX, false, idpYRequired, 'sso_required'],
    ['password session, membership ended and begun again after the session started (removed, invited back)', password, true, noIdp, 'session_predates_membership'],
    ['single sign-on through X, membership begun after the session (deprovisioned, provisioned again)', viaX, true, idpXRequired, 'session_predates_membership'],
    ['single sign-on through X, membership begun after the session, identity provider not required', viaX, true, idpX, 'session_predates_membership'],
    ['password session, membership begun after the session, single sign-on required (the session is older: said first)', password, true, idpXRequired, 'session_predates_membership'],
  ] as const)('%s', (_name, session, beganAfterSession, rule, expected) => {
    expect(organizationRefusal(session, beganAfterSession, rule)).toBe(expected);
  });
});
