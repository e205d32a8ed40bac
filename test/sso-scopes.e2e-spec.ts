import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DashboardClient } from './helpers/dashboard';
import { connectWithVerifiedDomains, identityProviderPath, redirectUriFor, startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { signupOverHttp, SignedUp } from './factories/rest';

/**
 * An identity provider that sends the groups claim only when the `groups` scope is asked for (as
 * Okta and Microsoft Entra ID can be set up): without the IdP's extra `scopes` the groups map
 * nobody, and the settings (REST and the Single sign-on page) say that the last ID token lacked
 * the claim; with `scopes: ["groups"]` the authorization request asks for it and the mapping works.
 */
describe('Single sign-on: extra scopes and whether the groups claim arrives', () => {
  let t: TestApp;
  let idp: TestIdp;
  let admin: SignedUp;
  let domain: string;

  beforeAll(async () => {
    idp = await startTestIdp({ groupsScope: 'groups' });
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', SSO_STARTS_PER_IP_PER_MINUTE: '1000', SSO_CALLBACKS_PER_IP_PER_MINUTE: '1000' });
    admin = await signupOverHttp(t);
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [await redirectUriFor(t, admin.organization.id, admin.accessToken)] });
    domain = testDomain();
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const settings = async () =>
    (await request(t.baseUrl).get(identityProviderPath(admin.organization.id)).set('Authorization', `Bearer ${admin.accessToken}`).expect(200)).body as {
      scopes: string[];
      lastIdToken: { receivedAt: string; claims: string[] } | null;
      groupsClaimInLastIdToken: boolean | null;
    };

  /** Start, the IdP as `sub`, and the callback: the authorization request's scope and the role the person then has. */
  async function signIn(email: string, sub: string): Promise<{ scope: string | null; role: string | null }> {
    const started = await startSingleSignOn(t.baseUrl, email);
    expect(started.status).toBe(303);
    const location = started.headers.get('location')!;
    const cookie = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!.split(';')[0];
    const callback = await idp.signInWithoutBrowser(location, sub);
    const done = await fetch(new URL(callback, t.baseUrl), { redirect: 'manual', headers: { cookie } });
    expect(done.status).toBe(303);
    const rows = (await t.dataSource.query('SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 AND u.email = $2', [
      admin.organization.id,
      email,
    ])) as { role: string }[];
    return { scope: new URL(location).searchParams.get('scope'), role: rows[0]?.role ?? null };
  }

  it('without the groups scope the claim is missing and the page says so; asking for it maps the person to admin', async () => {
    await connectWithVerifiedDomains(t, admin.organization.id, admin.accessToken, {
      issuer: idp.issuer,
      emailDomains: [domain],
      groupsClaim: 'groups',
      roleMappings: [{ group: 'gw-admins', role: 'admin' }],
    });
    expect(await settings()).toMatchObject({ scopes: [], lastIdToken: null, groupsClaimInLastIdToken: null });
    const page = new DashboardClient(t.baseUrl, admin.accessToken);
    const ssoPage = `/orgs/${admin.organization.id}/single-sign-on`;
    expect((await page.get(ssoPage)).text).toContain('No sign-in through the identity provider since its settings last changed');

    const email = `gia-${randomUUID().slice(0, 6)}@${domain}`;
    idp.setAccount('gia-sub', { email, email_verified: true, name: 'Gia Groups', groups: ['gw-admins'] });
    const first = await signIn(email, 'gia-sub');
    expect(first).toEqual({ scope: 'openid email profile', role: 'member' });
    const missing = await settings();
    expect(missing.groupsClaimInLastIdToken).toBe(false);
    expect(missing.lastIdToken!.claims).toEqual(expect.arrayContaining(['sub', 'email', 'email_verified', 'name']));
    expect(missing.lastIdToken!.claims).not.toContain('groups');
    // Claim names only: no value of the ID token is kept.
    const [row] = (await t.dataSource.query('SELECT last_id_token_claims::text AS claims FROM identity_providers WHERE organization_id = $1', [admin.organization.id])) as {
      claims: string;
    }[];
    expect(row.claims).not.toContain(email);
    expect(row.claims).not.toContain('Gia');
    const warned = (await page.get(ssoPage)).text;
    expect(warned).toMatch(/<dd id="sso-groups-claim-seen"><strong>Missing:<\/strong> the ID token of the last sign-in \([^)]*\) had no <code>groups<\/code> claim, so nobody's role follows the mappings/);

    // The admin asks for the groups scope on the page: the record of the last ID token starts again.
    const saved = await page.submit(ssoPage, ssoPage, {
      issuer: idp.issuer,
      clientId: TEST_IDP_CLIENT_ID,
      emailDomains: domain,
      defaultRole: 'member',
      scopes: 'groups',
      groupsClaim: 'groups',
      mappingGroup: 'gw-admins',
      mappingRole: 'admin',
    });
    expect(saved.status).toBe(303);
    expect(await settings()).toMatchObject({ scopes: ['groups'], lastIdToken: null, groupsClaimInLastIdToken: null });
    const shown = (await page.get(ssoPage)).text;
    expect(shown).toContain('<input type="text" id="sso-scopes" name="scopes" value="groups"');
    expect(shown).toContain('<dt>Scopes asked for at sign-in</dt><dd><code>openid email profile groups</code></dd>');

    const second = await signIn(email, 'gia-sub');
    expect(second).toEqual({ scope: 'openid email profile groups', role: 'admin' });
    const carried = await settings();
    expect(carried.groupsClaimInLastIdToken).toBe(true);
    expect(carried.lastIdToken!.claims).toContain('groups');
    expect((await page.get(ssoPage)).text).toMatch(/<dd id="sso-groups-claim-seen">Carried: the ID token of the last sign-in \([^)]*\) had <code>groups<\/code>\.<\/dd>/);
  });

  it('the page refuses a scope that is not a scope token, next to the field, and keeps what was typed', async () => {
    const page = new DashboardClient(t.baseUrl, admin.accessToken);
    const ssoPage = `/orgs/${admin.organization.id}/single-sign-on`;
    const refused = await page.submit(ssoPage, ssoPage, {
      issuer: idp.issuer,
      clientId: TEST_IDP_CLIENT_ID,
      emailDomains: domain,
      defaultRole: 'member',
      scopes: 'groups say"hi"',
      groupsClaim: 'groups',
      mappingGroup: 'gw-admins',
      mappingRole: 'admin',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<p class="field-error" id="sso-scopes-error">Extra scope 2 is not a scope token');
    expect(refused.text).toContain('value="groups say&quot;hi&quot;"');
    expect((await settings()).scopes).toEqual(['groups']);
  });
});
