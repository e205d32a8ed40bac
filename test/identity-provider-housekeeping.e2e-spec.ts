import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { MembershipDirectory } from '@app/tenancy';
import { addMember, createOrganization, createUser } from './factories';
import { signupOverHttp } from './factories/rest';
import { identityProviderPath, insertIdentityProvider } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * Two small things around single sign-on: the REST twin of the page's "I registered the new URI"
 * (clearing an identity provider's legacy redirect-URI flag), and the cleanup of membership
 * endings that can no longer matter.
 */
describe('identity provider housekeeping', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('POST …/identity-provider/redirect-uri/confirm clears the legacy flag (admin session only, audited once); 404 without an identity provider', async () => {
    const owner = await signupOverHttp(t);
    const orgId = owner.organization.id;
    const confirm = (jwt: string, id = orgId) => request(t.baseUrl).post(`${identityProviderPath(id)}/redirect-uri/confirm`).auth(jwt, { type: 'bearer' });
    await confirm(owner.accessToken).expect(404);
    await insertIdentityProvider(t, orgId, { issuer: 'https://idp.invalid' });
    await t.dataSource.query('UPDATE identity_providers SET legacy_redirect_uri = true WHERE organization_id = $1', [orgId]);

    const member = await createUser(t.dataSource);
    await addMember(t.dataSource, orgId, member.id, 'member');
    const memberJwt = (await t.app.get(SessionTokenService).issue(member.id)).accessToken;
    await confirm(memberJwt).expect(403);
    const other = await signupOverHttp(t);
    await confirm(other.accessToken).expect(404);

    const done = await confirm(owner.accessToken).expect(200);
    const shown = await request(t.baseUrl).get(identityProviderPath(orgId)).auth(owner.accessToken, { type: 'bearer' }).expect(200);
    expect(shown.body).toMatchObject({ redirectUri: done.body.redirectUri, legacyRedirectUri: false });
    expect(done.body.redirectUri).toMatch(new RegExp(`^${t.baseUrl}/auth/sso/callback/[A-Za-z0-9_-]+$`));
    await confirm(owner.accessToken).expect(200);
    const events = await t.dataSource.query(`SELECT actor_id, metadata->>'redirectUri' AS uri FROM audit_events WHERE organization_id = $1 AND action = 'identity_provider.redirect_uri_confirmed'`, [orgId]);
    expect(events).toEqual([{ actor_id: owner.user.id, uri: done.body.redirectUri }]);
  });

  it('the sessions cleanup forgets membership endings no live session predates, and keeps removals, deprovisionings and endings a live session predates', async () => {
    const org = await createOrganization(t.dataSource);
    const people = await Promise.all([1, 2, 3, 4].map(() => createUser(t.dataSource)));
    const [settled, predated, removed, deprovisioned] = people;
    for (const p of people) await addMember(t.dataSource, org.id, p.id, 'member');
    // A live session issued before its ending: the ending still closes the organisation to it.
    const live = await t.app.get(SessionTokenService).issue(predated.id);
    // An expired session issued before the ending: nothing left for the ending to close.
    await t.app.get(SessionTokenService).issue(settled.id);
    await t.dataSource.query(`UPDATE sessions SET created_at = now() - interval '2 days', expires_at = now() - interval '1 day' WHERE user_id = $1`, [settled.id]);
    const ending = (userId: string, flags: { removed?: boolean; deprovisioned?: boolean } = {}) =>
      t.dataSource.query(`INSERT INTO membership_endings (organization_id, user_id, ended_at, removed, deprovisioned) VALUES ($1, $2, now() + interval '1 second', $3, $4)`, [
        org.id,
        userId,
        flags.removed ?? false,
        flags.deprovisioned ?? false,
      ]);
    await ending(settled.id);
    await ending(predated.id);
    await ending(removed.id, { removed: true });
    await ending(deprovisioned.id, { deprovisioned: true });

    expect(await t.app.get(MembershipDirectory).forgetSettledEndings()).toBe(1);
    const left = await t.dataSource.query('SELECT user_id FROM membership_endings WHERE organization_id = $1 ORDER BY user_id', [org.id]);
    expect(left.map((r: { user_id: string }) => r.user_id)).toEqual([predated.id, removed.id, deprovisioned.id].sort());
    // The live session still does not open the organisation.
    await request(t.baseUrl).get(`/api/organizations/${org.id}/projects`).auth(live.accessToken, { type: 'bearer' }).expect(401);
  });
});
