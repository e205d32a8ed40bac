import request from 'supertest';
import { DashboardClient, dashboardApp, DashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';
import { createUser } from './factories';
import { sessionFor } from './factories/rest';

/** The dashboard's invitation page (`/invitation?token=…`): accepting a link as the signed-in account. */
describe('Dashboard: accepting an invitation as a signed-in person', () => {
  let t: TestApp;
  let org: DashboardOrganization;
  beforeAll(async () => {
    ({ t, org } = await dashboardApp({ SIGNUP_ENABLED: 'false' }));
  });
  afterAll(() => t.close());

  const invite = async (email: string) =>
    (await request(t.baseUrl).post(`/api/organizations/${org.organization.id}/members`).auth(org.admin.session, { type: 'bearer' }).send({ email, role: 'member' }).expect(201))
      .body as { token: string; link: string };
  const isMember = async (userId: string) =>
    (await t.dataSource.query(`SELECT 1 FROM memberships WHERE organization_id = $1 AND user_id = $2`, [org.organization.id, userId])).length === 1;

  it('a signed-in browser opening the link is sent to the invitation page, which names the organisation and role', async () => {
    const invitation = await invite(org.member.email);
    const opened = await request(t.baseUrl).get(`/signup?invitation=${invitation.token}`).set('Cookie', `ag_session=${org.member.session}`).redirects(0).expect(303);
    expect(opened.headers.location).toBe(`/invitation?token=${invitation.token}`);
    const page = await org.member.page.get(opened.headers.location as string);
    expect(page.status).toBe(200);
    expect(page.text).toContain('You are already a member of');
    // Signed out, the same link shows the sign-up form, whose "Sign in" keeps the invitation.
    const signedOut = await request(t.baseUrl).get(`/signup?invitation=${invitation.token}`).expect(200);
    expect(signedOut.text).toContain(`/login?next=${encodeURIComponent(`/invitation?token=${invitation.token}`)}`);
    const login = await request(t.baseUrl).get(`/login?next=${encodeURIComponent(`/invitation?token=${invitation.token}`)}`).expect(200);
    expect(login.text).toContain(`href="/signup?invitation=${invitation.token}"`);
  });

  it('accepting needs the CSRF token, refuses another email (403, the link stays usable) and joins the invited account once', async () => {
    const invitedEmail = `invited-${Date.now()}@example.test`;
    const invitation = await invite(invitedEmail);
    // Someone signed in with another email: the page says so, the post is refused and nothing is used.
    const outsiderId = (await createUser(t.dataSource, { name: 'Otto Outsider' })).id;
    const outsider = new DashboardClient(t.baseUrl, await sessionFor(t, outsiderId));
    const shown = await outsider.get(`/invitation?token=${invitation.token}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('This invitation is for another email');
    expect(shown.text).not.toContain('action="/invitation/accept"');
    const refused = await outsider.post('/invitation/accept', { token: invitation.token });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('This invitation is for another email');
    expect(await isMember(outsiderId)).toBe(false);

    // The invited email's account: without the CSRF token nothing happens; with it, it joins.
    const invitedId = (await createUser(t.dataSource, { email: invitedEmail, name: 'Ivy Invited' })).id;
    const invited = new DashboardClient(t.baseUrl, await sessionFor(t, invitedId));
    const page = await invited.get(`/invitation?token=${invitation.token}`);
    expect(page.text).toContain('action="/invitation/accept"');
    expect((await invited.post('/invitation/accept', { token: invitation.token }, null)).status).toBe(403);
    expect(await isMember(invitedId)).toBe(false);
    const accepted = await invited.post('/invitation/accept', { token: invitation.token });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.location).toBe(`/orgs/${org.organization.id}/projects?done=joined`);
    expect(await isMember(invitedId)).toBe(true);
    // Accepting ended that session and set a new one, which opens the organisation (SPEC §10).
    const renewed = ([] as string[]).concat(accepted.headers['set-cookie'] ?? []).find((c) => c.startsWith('ag_session='))!;
    const joined = new DashboardClient(t.baseUrl, decodeURIComponent(renewed.split(';')[0]!.slice('ag_session='.length)));
    expect((await invited.get(`/orgs/${org.organization.id}/projects`)).status).toBe(303);
    expect((await joined.get(`/orgs/${org.organization.id}/projects`)).status).toBe(200);
    // Used once: a second post is the "no longer works" page.
    expect((await joined.post('/invitation/accept', { token: invitation.token })).status).toBe(404);
    expect((await joined.get(`/invitation?token=nonsense`)).status).toBe(404);
  });
});
