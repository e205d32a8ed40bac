import { reauthenticatePath, ReauthenticationRequiredError, recentSignInMethod } from './recent-sign-in';

describe('how a session refreshes its sign-in', () => {
  it('a password session by its password, a single sign-on session through its IdP', () => {
    expect(recentSignInMethod({ ssoIssuer: null })).toBe('password');
    expect(recentSignInMethod({ ssoIssuer: 'https://idp.example' })).toBe('sso');
  });

  it('the 401 names the method and where to go', () => {
    const org = '0b8f0a4e-9a53-4c55-9f36-0c1f6f1d2c3e';
    expect(new ReauthenticationRequiredError({ ssoIssuer: null }, org).restFields).toEqual({ method: 'password', reauthenticateUrl: '/api/auth/reauthenticate' });
    expect(new ReauthenticationRequiredError({ ssoIssuer: 'https://idp.example' }, org).restFields).toEqual({
      method: 'sso',
      reauthenticateUrl: `/auth/sso/step-up?organization=${org}`,
    });
    expect(new ReauthenticationRequiredError().restFields.method).toBe('password');
  });

  it('the step-up path carries the organisation and the page to come back to, encoded', () => {
    expect(reauthenticatePath('sso')).toBe('/auth/sso/step-up');
    expect(reauthenticatePath('sso', { organizationId: 'o1', returnTo: '/approvals/a?x=1&y=2' })).toBe('/auth/sso/step-up?organization=o1&return_to=%2Fapprovals%2Fa%3Fx%3D1%26y%3D2');
    expect(reauthenticatePath('password', { organizationId: 'o1', returnTo: '/x' })).toBe('/api/auth/reauthenticate');
  });
});
